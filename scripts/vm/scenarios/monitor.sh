# `beacon-provision monitor` on hci0 over a real controller, with two non-connectable iBeacons
# served by `beacon-provision sim serve`:
# - on hci1, a device reported entering; when its `sim serve` is stopped with SIGTERM it must switch
#   advertising off (LE Set Advertise Enable 0x00; before, it closed the socket with the controller still
#   advertising), so it goes silent and is reported exiting once its exit timeout has passed; served again, it
#   is reported entering again;
# - on hci2, a device whose fleet entry scripts its presence (on the air for its first 20 s of serving, silent
#   until 45 s, then on for good): enter, exit, enter, without any process being stopped.
# The exit timeout is 12 s because the kernel's LE discovery (the mgmt backend) may report a device once per
# discovery, and it restarts discovery about every 10 s.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: monitor
. "$VM_LIB"

vm_setup 3
dev=$(vm_address hci1)
scripted=$(vm_address hci2)
events=$VM_OUT/monitor-events.json
printf '%s\n' '{"version": 1, "defaults": {"exitTimeout": 12}, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}]}' >"$events"
cat >"$VM_OUT/presence-fleet.json" <<'JSON'
{"version": 1, "devices": [
  {"address": "AC:23:3F:00:00:20", "kind": "iBeacon", "connectable": false, "intervalMs": 300,
   "iBeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 20, "measuredPower": -59},
   "presence": [{"from": 0, "to": 20}, {"from": 45}]}]}
JSON
vm_bg_split monitor timeout 150 "$BP" monitor --adapter hci0 --events "$events" --jsonl --duration 140 --state-dir "$VM_OUT/state"
monitor=$VM_BG_PID
vm_bg sim-serve-scripted "$BP" sim serve --fleet "$VM_OUT/presence-fleet.json" --adapter hci2
scripted_serve=$VM_BG_PID
serve() { vm_bg "sim-serve-$1" "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1 --device AC:23:3F:00:00:10; }
enter="\"kind\":\"enter\".*\"address\":\"$dev\"" exit="\"kind\":\"exit\".*\"address\":\"$dev\""

serve 1
served=$VM_BG_PID
vm_wait_for 40 "the monitor to report $dev entering" vm_lines_at_least 1 "$enter" "$VM_OUT/monitor.out"
vm_stop "$served"
vm_wait_for 40 "the monitor to report $dev exiting (sim serve must stop advertising on SIGTERM)" \
  vm_lines_at_least 1 "$exit" "$VM_OUT/monitor.out"
serve 2
vm_wait_for 40 "the monitor to report $dev entering again" vm_lines_at_least 2 "$enter" "$VM_OUT/monitor.out"
vm_wait_for 90 "the monitor to report the scripted $scripted entering again" \
  vm_lines_at_least 2 "\"kind\":\"enter\".*\"address\":\"$scripted\"" "$VM_OUT/monitor.out"
vm_stop "$monitor"
vm_stop "$scripted_serve"
sed 's/^/    | /' "$VM_OUT/monitor.out"

kinds_of() {
  grep -o "\"kind\":\"[a-z-]*\".*\"address\":\"$1\"" "$VM_OUT/monitor.out" | sed 's/"kind":"\([a-z-]*\)".*/\1/' | tr '\n' ' '
}
kinds=$(kinds_of "$dev")
[[ $kinds == "enter exit enter "* ]] || vm_fail "events for $dev: '$kinds' (wanted enter exit enter)"
kinds=$(kinds_of "$scripted")
[[ $kinds == "enter exit enter "* ]] || vm_fail "events for the scripted $scripted: '$kinds' (wanted enter exit enter)"
echo "PASS monitor ($VM_MODE)"
