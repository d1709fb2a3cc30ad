# `reconcile --firmware latest` on hci0 over the real kernel stack, against a KBeacon Pro served on hci1 whose
# update fails (its bootloader drops the link at byte 1,000 and on the next 12 data writes, more than
# reconcile's first visit gets past) and whose bootloader does not give up for ten minutes, as one with no
# application to go back to never does. reconcile configures the device, puts it in its bootloader (at its
# address + 1, an LE random address), fails the update, and from then on hears only that bootloader, under the
# name it gave it. After --bootloader-timeout (5 s here) it reports `firmware-in-bootloader` once, naming the
# run that left the device and the command that finishes it. Once the device's backoff (20 s) has run,
# reconcile resumes that run itself, for that device, at its waiting bootloader, until it is updated: one image
# activated, in the served device's own log, and `firmware-updated` 5.12 → 5.14, with no command run by hand.
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
  --backoff-base 20 --bootloader-timeout 5 --firmware latest --catalog "file://$VM_REPO/firmware/example" \
  --firmware-dir "$VM_OUT/firmware" --state-dir "$VM_OUT/state"
reconcile=$VM_BG_PID
stuck="\"address\":\"$kb\".*\"event\":\"firmware-in-bootloader\""
updated="\"address\":\"$kb\".*\"event\":\"firmware-updated\""
vm_wait_for 240 "reconcile to report $kb left in its bootloader" vm_lines_at_least 1 "$stuck" "$VM_OUT/reconcile.out"
vm_wait_for 300 "reconcile to finish $kb in its bootloader" vm_lines_at_least 1 "$updated" "$VM_OUT/reconcile.out"
vm_term "$reconcile" reconcile
sed 's/^/    | /' "$VM_OUT/reconcile.out" "$VM_OUT/reconcile.log" "$VM_OUT/sim-serve.log"
[[ $VM_RC -eq 0 ]] || vm_fail "reconcile should exit 0 when stopped by SIGTERM, got $VM_RC"
reports=$(grep -c "$stuck" "$VM_OUT/reconcile.out" || true)
[[ $reports -eq 1 ]] || vm_fail "firmware-in-bootloader reported $reports times, wanted once"
run=$(grep "$stuck" "$VM_OUT/reconcile.out" | grep -oE '"reason":"[^"]+"' | cut -d'"' -f4)
[[ -n $run ]] || vm_fail "the report does not name the run that left the device"
grep -q "$kb: firmware failed, and its DFU bootloader (Dfu.*finish it with  beacon-provision dfu update .*--resume $run" \
  "$VM_OUT/reconcile.log" || vm_fail "the report's line does not name the bootloader and the resume"
grep -q "$kb: left in its DFU bootloader by run $run; resuming that run for it" "$VM_OUT/reconcile.log" \
  || vm_fail "reconcile did not say it resumed run $run for the device"
grep "$updated" "$VM_OUT/reconcile.out" | grep -q '"from":"5.12".*"to":"5.14"\|"to":"5.14".*"from":"5.12"' \
  || vm_fail "firmware-updated does not say 5.12 -> 5.14"
activations=$(grep -c "left its DFU bootloader: new application" "$VM_OUT/sim-serve.log" || true)
[[ $activations -eq 1 ]] || vm_fail "the device activated $activations images (its own log), wanted 1"
vm_log "ok: the device left in its bootloader was reported once (run $run), then reconcile finished it itself"
echo "PASS reconcile-stuck-bootloader ($VM_MODE)"
