# `beacon-provision monitor` on hci0 over a real controller (issue #16): a non-connectable iBeacon served on
# hci1 by `beacon-provision sim serve` is reported entering; when `sim serve` stops, the device goes silent
# and is reported exiting once its exit timeout has passed; served again, it is reported entering again.
# The exit timeout is 12 s because the kernel's LE discovery (the mgmt backend) may report a device once
# per discovery, and it restarts discovery about every 10 s.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: monitor
. "$VM_LIB"

vm_setup 2
dev=$(vm_address hci1)
events=$VM_OUT/monitor-events.json
printf '%s\n' '{"version": 1, "defaults": {"exitTimeout": 12}, "events": [{"name": "in", "trigger": "enter"}, {"name": "out", "trigger": "exit"}]}' >"$events"
vm_bg_split monitor timeout 150 "$BP" monitor --adapter hci0 --events "$events" --jsonl --duration 140 --state-dir "$VM_OUT/state"
monitor=$VM_BG_PID
serve() { vm_bg "sim-serve-$1" "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1 --device AC:23:3F:00:00:10; }
enter="\"kind\":\"enter\".*\"address\":\"$dev\"" exit="\"kind\":\"exit\".*\"address\":\"$dev\""

serve 1
served=$VM_BG_PID
vm_wait_for 40 "the monitor to report $dev entering" vm_lines_at_least 1 "$enter" "$VM_OUT/monitor.out"
vm_stop "$served"
# `sim serve` stopped by SIGTERM closes its HCI socket without disabling advertising (btmon shows no LE Set
# Advertise Enable 0x00 on hci1, found by this scenario), so the controller keeps advertising: switch it off.
hciconfig hci1 noleadv || true
vm_wait_for 40 "the monitor to report $dev exiting" vm_lines_at_least 1 "$exit" "$VM_OUT/monitor.out"
serve 2
vm_wait_for 40 "the monitor to report $dev entering again" vm_lines_at_least 2 "$enter" "$VM_OUT/monitor.out"
vm_stop "$monitor"
sed 's/^/    | /' "$VM_OUT/monitor.out"

kinds=$(grep -o "\"kind\":\"[a-z-]*\".*\"address\":\"$dev\"" "$VM_OUT/monitor.out" | sed 's/"kind":"\([a-z-]*\)".*/\1/' | tr '\n' ' ')
[[ $kinds == "enter exit enter "* ]] || vm_fail "events for $dev: '$kinds' (wanted enter exit enter)"
echo "PASS monitor ($VM_MODE)"
