# `reconcile --firmware latest` on hci0 over the real kernel stack, against a KBeacon Pro served on hci1 whose
# update fails (its bootloader drops the link at byte 1,000 and on the next 12 data writes, more than
# reconcile's attempts get past) and whose bootloader does not give up for ten minutes, as one with no
# application to go back to never does. reconcile configures the device, puts it in its bootloader (at its
# address + 1, an LE random address), fails the update, and from then on hears only that bootloader, under the
# name it gave it. After --bootloader-timeout (5 s here) it reports `firmware-in-bootloader` once, naming the
# run that left the device and the command that finishes it, and tries nothing more: one firmware failure, one
# report, no image activated. Then that command, as printed (with the raw HCI scan this tier uses), finishes
# the device in its waiting bootloader: one image activated, in the served device's own log.
# vm-e2e-modes: bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: reconcile
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
cat >"$VM_OUT/fleet.json" <<'FLEET'
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D2:41", "kind": "kbeaconPro", "name": "KBPro_S01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 600000, "faults": {"dropLinkAtByte": 1000, "dropsAfterward": 12}}}
]}
FLEET
cat >"$VM_OUT/profile.json" <<JSON
{"version": 1, "select": {"addresses": ["$kb"]},
 "desired": {"slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 8, "minor": 2}]}}
JSON
vm_bg sim-serve "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"

vm_bg_split reconcile "$BP" reconcile "$VM_OUT/profile.json" --adapter hci0 --scan-backend hci --window 4 --jsonl \
  --backoff-base 2 --bootloader-timeout 5 --firmware latest --catalog "file://$VM_REPO/firmware/example" \
  --firmware-dir "$VM_OUT/firmware" --state-dir "$VM_OUT/state"
reconcile=$VM_BG_PID
stuck="\"address\":\"$kb\".*\"event\":\"firmware-in-bootloader\""
vm_wait_for 240 "reconcile to report $kb left in its bootloader" vm_lines_at_least 1 "$stuck" "$VM_OUT/reconcile.out"
# Two windows more: the report is not repeated, and the silent device is not tried again.
vm_sleep 9
vm_term "$reconcile" reconcile
sed 's/^/    | /' "$VM_OUT/reconcile.out" "$VM_OUT/reconcile.log" "$VM_OUT/sim-serve.log"
[[ $VM_RC -eq 0 ]] || vm_fail "reconcile should exit 0 when stopped by SIGTERM, got $VM_RC"
reports=$(grep -c "$stuck" "$VM_OUT/reconcile.out" || true)
[[ $reports -eq 1 ]] || vm_fail "firmware-in-bootloader reported $reports times, wanted once"
failures=$(grep -c "\"address\":\"$kb\".*\"event\":\"firmware-failed\"" "$VM_OUT/reconcile.out" || true)
[[ $failures -eq 1 ]] || vm_fail "the update failed $failures times, wanted once: the silent device was tried again"
run=$(grep "$stuck" "$VM_OUT/reconcile.out" | grep -oE '"reason":"[^"]+"' | cut -d'"' -f4)
[[ -n $run ]] || vm_fail "the report does not name the run that left the device"
grep -q "$kb: firmware failed, and its DFU bootloader (Dfu.*finish it with  beacon-provision dfu update .*--resume $run" \
  "$VM_OUT/reconcile.log" || vm_fail "the report's line does not name the bootloader and the resume"
! grep -q "left its DFU bootloader: new application" "$VM_OUT/sim-serve.log" || vm_fail "an image was activated"
vm_log "ok: the device left in its bootloader was reported once, with run $run, and not tried again"

command=$(grep -oE "finish it with  beacon-provision dfu update .* --resume $run\$" "$VM_OUT/reconcile.log" | head -1)
[[ -n $command ]] || vm_fail "the report does not print the command that finishes the run"
read -r -a finish <<<"${command#finish it with  beacon-provision }"
vm_run_split resumed timeout -k 2 180 "$BP" "${finish[@]}" --scan-backend hci --scan 5 --json
sed 's/^/    | /' "$VM_OUT/resumed.log" "$VM_OUT/resumed.out"
[[ $VM_RC -eq 0 ]] || vm_fail "the printed command exited $VM_RC"
vm_expect_updated_once "$VM_OUT/resumed.out" "$kb" "$VM_OUT/sim-serve.log"
vm_log "ok: the printed command finished the device in its bootloader"
echo "PASS reconcile-stuck-bootloader ($VM_MODE)"
