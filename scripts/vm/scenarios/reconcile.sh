# `beacon-provision reconcile` on hci0 over the real kernel stack, against two simulated KBeacon Pros served by
# `beacon-provision sim serve`: one on hci1 from the start, one on hci2 that appears only after the first has
# converged. reconcile runs until stopped (windows of 4 s, raw HCI scans as provision.sh explains): each device
# must converge once, with a write, as soon as it is heard — the late one without anyone restarting anything —
# and neither is written again. SIGTERM then stops it with status 0. Then a fresh reconcile per device
# (`--once`, a schedule of its own) finds each compliant: the writes are on the devices. Last, the early
# device's own reconcile again with --firmware latest (the repository's example catalogue, a file:// base):
# the device it found compliant runs 5.12, so it is put in its bootloader and updated to 5.14 over hci0, and
# the version is read back from it, as the canary of a staged rollout (--rollout canary=1,waves=100%).
# Run with bluetoothd only, as a gateway runs it: one mode keeps the tier's time (provision.sh covers the
# same write path in both).
# vm-e2e-modes: bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: reconcile
. "$VM_LIB"

vm_setup 3
early=$(vm_address hci1)
late=$(vm_address hci2)
fleet="$VM_OUT/reconcile-fleet.json"
cat >"$fleet" <<'JSON'
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D2:01", "kind": "kbeaconPro", "name": "KBPro_R01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 120000}},
  {"address": "DD:34:02:06:D2:02", "kind": "kbeaconPro", "name": "KBPro_R02", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"}}]}
JSON
profile="$VM_OUT/reconcile-profile.json"
cat >"$profile" <<JSON
{"version": 1, "select": {"addresses": ["$early", "$late"]},
 "desired": {"name": "vm-reconciled", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 8, "minor": 1, "intervalMs": 760},
                                                {"slot": 1, "type": "off"}]}}
JSON

vm_bg sim-serve-early "$BP" sim serve --fleet "$fleet" --adapter hci1 --device DD:34:02:06:D2:01
serve_early=$VM_BG_PID
vm_wait_for 40 "sim serve to advertise on hci1" vm_file_has "on hci1 as $early" "$VM_OUT/sim-serve-early.log"

vm_bg_split reconcile "$BP" reconcile "$profile" --adapter hci0 --scan-backend hci --window 4 --jsonl \
  --backoff-base 2 --state-dir "$VM_OUT/state"
reconcile=$VM_BG_PID
converged() { printf '"address":"%s".*"event":"converged"' "$1"; }

vm_wait_for 120 "reconcile to converge $early" vm_lines_at_least 1 "$(converged "$early")" "$VM_OUT/reconcile.out"
vm_log "ok: $early converged while reconcile runs"
vm_bg sim-serve-late "$BP" sim serve --fleet "$fleet" --adapter hci2 --device DD:34:02:06:D2:02
serve_late=$VM_BG_PID
vm_wait_for 40 "sim serve to advertise on hci2" vm_file_has "on hci2 as $late" "$VM_OUT/sim-serve-late.log"
vm_wait_for 120 "reconcile to converge $late, which appeared later" \
  vm_lines_at_least 1 "$(converged "$late")" "$VM_OUT/reconcile.out"
vm_log "ok: $late converged after it appeared"
# Two more windows: a converged device is left alone.
vm_sleep 9
vm_term "$reconcile" reconcile
sed 's/^/    | /' "$VM_OUT/reconcile.out"
sed 's/^/    | /' "$VM_OUT/reconcile.log"
[[ $VM_RC -eq 0 ]] || vm_fail "reconcile should exit 0 when stopped by SIGTERM, got $VM_RC"
grep -q "reconcile: stopped" "$VM_OUT/reconcile.log" || vm_fail "reconcile did not say it stopped"
for device in "$early" "$late"; do
  lines=$(grep -c "$(converged "$device")" "$VM_OUT/reconcile.out" || true)
  [[ $lines -eq 1 ]] || vm_fail "$device converged $lines times (wanted once: a converged device is left alone)"
  grep "$(converged "$device")" "$VM_OUT/reconcile.out" | grep -q '"keys":\[[^]]*"name"' \
    || vm_fail "$device converged without writing its name"
done
grep -q '"event":"write-failed"' "$VM_OUT/reconcile.out" && vm_log "note: a write failed once and was retried"
vm_log "ok: each device written once; SIGTERM stopped reconcile with status 0"

# One device per fresh run: btvirt mishandles a second link made while the kernel still holds the first idle
# (audit.sh), which a pass visiting both devices back to back would hit; a real controller has no such coupling.
for device in "$early" "$late"; do
  sed "s/\"$early\", \"$late\"/\"$device\"/" "$profile" >"$VM_OUT/one-$device.json"
  expect_success 120 "$BP" reconcile "$VM_OUT/one-$device.json" --adapter hci0 --scan-backend hci --window 6 \
    --once --jsonl --state-dir "$VM_OUT/state-fresh-$device"
  grep -q "\"address\":\"$device\".*\"event\":\"converged\",\"keys\":\[\]" <<<"$VM_LAST_OUTPUT" \
    || vm_fail "a fresh reconcile should find $device compliant"
done
vm_log "ok: a fresh reconcile finds each device compliant"

expect_success 180 "$BP" reconcile "$VM_OUT/one-$early.json" --adapter hci0 --scan-backend hci --window 6 \
  --once --jsonl --state-dir "$VM_OUT/state-fresh-$early" --firmware latest \
  --catalog "file://$VM_REPO/firmware/example" --firmware-dir "$VM_OUT/firmware" --rollout canary=1,waves=100%
grep -q "\"address\":\"$early\".*\"event\":\"converged\"" <<<"$VM_LAST_OUTPUT" \
  && vm_fail "the configuration of $early was checked again within --recheck"
grep "\"address\":\"$early\".*\"event\":\"firmware-updated\"" <<<"$VM_LAST_OUTPUT" \
  | grep -q "\"from\":\"5.12\".*\"to\":\"5.14\"" \
  || vm_fail "reconcile --firmware latest should update $early from 5.12 to 5.14"
vm_log "ok: reconcile --firmware latest updated $early to 5.14 and read it back"
grep -q '"event":"rollout-stage".*"reason":"canary"' <<<"$VM_LAST_OUTPUT" \
  || vm_fail "the rollout's canary (the one device) should have ended as a stage"
vm_log "ok: --rollout: the canary stage ended with the update"
vm_stop "$serve_early"
vm_stop "$serve_late"
echo "PASS reconcile ($VM_MODE)"
