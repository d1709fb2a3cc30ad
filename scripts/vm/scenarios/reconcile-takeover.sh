# A gateway that dies mid-transfer, and one started afterwards that finishes the device, over the real kernel
# stack (docs/guide/several-gateways.md, docs/protocols/nordic-dfu.md §2.2): `beacon-provision reconcile` on
# hci0 (gw-1) and later on hci2 (gw-2), each with its own state directory, sharing a real PostgreSQL journal,
# against one simulated KBeacon Pro (5.12) served on hci1. gw-1 configures the device and sends it to its
# bootloader, and is killed (SIGKILL) as soon as the served device says it is there: gw-1 may have linked to the
# bootloader, not sent the image (checked: the device activated one image, after gw-2 linked). The device waits
# in its bootloader at its address + 1 (an LE random address), advertising the name gw-1 gave it, its
# application silent. gw-2 never heard the application; it
# hears that bootloader, finds the device's row in the profile's firmware run cut short mid-transfer, takes it
# over once gw-1's lease has run out, and finishes the image — one image activated in the served device's own
# log, from gw-2's controller, long before the bootloader's own timeout (300 s here) could have brought the old
# application back.
# vm-e2e-modes: bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: reconcile
. "$VM_LIB"

vm_setup 3
device=$(vm_address hci1)
central2=$(vm_address hci2)
vm_postgres takeover

cat >"$VM_OUT/fleet.json" <<'JSON'
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D4:01", "kind": "kbeaconPro", "name": "KBPro_T01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 300000}}]}
JSON
profile="$VM_OUT/site.json"
cat >"$profile" <<JSON
{"version": 1, "select": {"addresses": ["$device"]},
 "desired": {"name": "vm-takeover", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 9, "minor": 3, "intervalMs": 760},
                                             {"slot": 1, "type": "off"}]}}
JSON

vm_bg serve "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci1
serve=$VM_BG_PID
vm_wait_for 40 "sim serve to advertise on hci1" vm_file_has "on hci1 as $device" "$VM_OUT/serve.log"

gateway() { # gateway NAME ADAPTER
  vm_bg_split "$1" "$BP" reconcile "$profile" --adapter "$2" --scan-backend hci --window 4 --jsonl --parallel 1 \
    --state-dir "$VM_OUT/state-$1" --journal "$VM_JOURNAL" --gateway "$1" --gateways 1 --lease 6 \
    --firmware latest --catalog "file://$VM_REPO/firmware/example" --firmware-dir "$VM_OUT/firmware-$1"
}
gateway gw-1 hci0
gw1=$VM_BG_PID
vm_wait_for 240 "gw-1 to take the device to its bootloader" vm_file_has "is in its DFU bootloader" "$VM_OUT/serve.log"
kill -KILL "$gw1"
set +e
wait "$gw1"
set -e
sed 's/^/    gw-1 | /' "$VM_OUT/gw-1.log"
! grep -q '"event":"firmware-updated"' "$VM_OUT/gw-1.out" || vm_fail "gw-1 finished the update before it was killed"
vm_log "ok: gw-1 killed with the device in its bootloader"

gateway gw-2 hci2
gw2=$VM_BG_PID
vm_wait_for 240 "gw-2 to finish the device's update" \
  vm_lines_at_least 1 "\"address\":\"$device\".*\"event\":\"firmware-updated\"" "$VM_OUT/gw-2.out"
kill -TERM "$gw2"
vm_wait_for 60 "gw-2 to stop on SIGTERM" eval "! kill -0 $gw2"
set +e
wait "$gw2"
rc=$?
set -e
sed 's/^/    gw-2 | /' "$VM_OUT/gw-2.out" "$VM_OUT/gw-2.log"
sed 's/^/    serve | /' "$VM_OUT/serve.log"
[[ $rc -eq 0 ]] || vm_fail "gw-2 should exit 0 when stopped by SIGTERM, got $rc"
grep -q "firmware: $device  not seen, but its DFU bootloader is advertising (Dfu" "$VM_OUT/gw-2.log" \
  || vm_fail "gw-2 did not say it found the device's bootloader"
grep -q "taking it over once no other gateway holds it" "$VM_OUT/gw-2.log" || vm_fail "gw-2 did not take the device over"
grep "\"address\":\"$device\".*\"event\":\"firmware-updated\"" "$VM_OUT/gw-2.out" | grep -q '"to":"5.14"' \
  || vm_fail "gw-2 did not update the device to 5.14"
activations=$(grep -c "left its DFU bootloader: new application" "$VM_OUT/serve.log" || true)
[[ $activations -eq 1 ]] || vm_fail "the device activated $activations images (its own log), wanted 1"
grep -q "link from $central2" "$VM_OUT/serve.log" || vm_fail "the served device shows no link from gw-2's controller"
vm_log "ok: gw-2 took the device over from its bootloader and activated 5.14 once"
vm_stop "$serve"
echo "PASS reconcile-takeover ($VM_MODE)"
