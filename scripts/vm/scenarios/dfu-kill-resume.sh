# A firmware update killed mid-transfer and finished by `--resume`, over the real kernel stack: `dfu update
# --firmware latest` (the repository's example catalogue, file://) is killed (SIGKILL) as soon as the served
# KBeacon Pro (5.12) says it is in its DFU bootloader — by then the killed process has linked to the bootloader
# (at the device's address + 1, an LE random address) or is about to. `dfu update --resume last` then hears only
# the bootloader, under the name the first run gave it, and finishes the image there: one image activated in the
# served device's own log, `updated` from 5.12 to 5.14 in the resume's JSON.
#
# The served bootloader once ended the resume's links at 0 ATT PDUs, on every retry: replacing the vanished
# central's link, it ended every link of the device, the new one too, and Debian 6.1's kernel hit a list
# corruption on those closes (`hci_chan_del`). `ServedLinks.drop(_:for:)` ends only the replaced link now.
# vm-e2e-modes: plain
# vm-e2e-requires: sim serve
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
cat >"$VM_OUT/fleet.json" <<FLEET
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D1:61", "kind": "kbeaconPro", "name": "KBPro_K01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 300000}}
]}
FLEET
vm_bg sim-serve "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"

campaign=(--firmware latest --catalog "file://$VM_REPO/firmware/example" --firmware-dir "$VM_OUT/firmware" --adapter hci0
  --scan-backend hci --address "$kb" --retry-delay 1 --timeout 10 --state-dir "$VM_OUT/state" --json)
vm_bg_split first "$BP" dfu update "${campaign[@]}" --scan 5
first=$VM_BG_PID
vm_wait_for 240 "the device to enter its bootloader" vm_file_has "is in its DFU bootloader" "$VM_OUT/sim-serve.log"
kill -KILL "$first"
set +e
wait "$first"
set -e
! grep -q "left its DFU bootloader" "$VM_OUT/sim-serve.log" || vm_fail "the first run finished before it was killed"
vm_log "ok: the first run killed with the device in its bootloader"

vm_run_split resumed timeout -k 2 180 "$BP" dfu update "${campaign[@]}" --scan 5 --resume last
sed 's/^/    | /' "$VM_OUT/resumed.log" "$VM_OUT/resumed.out" "$VM_OUT/sim-serve.log"
[[ $VM_RC -eq 0 ]] || vm_fail "dfu update --resume last exited $VM_RC"
vm_expect_updated_once "$VM_OUT/resumed.out" "$kb" "$VM_OUT/sim-serve.log"
! grep -q "closed after 0 ATT PDUs" "$VM_OUT/sim-serve.log" || vm_fail "a link to the bootloader was ended at 0 ATT PDUs"
vm_log "ok: the resume finished the transfer the killed run began"
echo "PASS dfu-kill-resume ($VM_MODE)"
