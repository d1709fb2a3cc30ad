# A catalogue update that broke off mid-transfer, finished by `--resume` over the real kernel stack
# (docs/protocols/nordic-dfu.md §2.5, docs/protocols/kbeacon.md §11). The served KBeacon Pro (KBPro_SIM, V5.12)
# drops its DFU link at byte 2,000 of the image and on the next 5 data writes (`dfu.faults.dropsAfterward`). The
# first `dfu update --firmware latest --attempts 1` gives up after 4 losses in a row without progress and fails
# the device, which waits in its bootloader (at its address + 1, an LE random address) holding part of the
# image, with no application to read. A new run naming the device hears only its bootloader, under the name the
# first run gave it, touches nothing and names the run to resume. `--resume` cannot read the device's model and
# hardware version either: it takes them from the fleet registry the first run filled, resolves the same package
# from the catalogue (nginx on the guest's loopback), goes to the waiting bootloader without a second jump (and,
# having heard only the bootloader at its scan, without trying the silent application: CatalogueResumeTests counts),
# meets the last drop, reconnects, and finishes: its JSON counts only the bytes the bootloader lacked (`bytes`,
# under `imageBytes`), as the simulated tier counts them at the device too (CatalogueResumeTests). The served device's links from the jump
# to its new application are all its bootloader's; a separate `read` shows V5.14.
# vm-e2e-modes: plain
# vm-e2e-requires: sim serve
# vm-e2e-requires: firmware fetch
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
cat >"$VM_OUT/fleet.json" <<FLEET
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D1:51", "kind": "kbeaconPro", "name": "KBPro_RES01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 300000,
           "faults": {"dropLinkAtByte": 2000, "dropsAfterward": 5}}}
]}
FLEET

vm_serve_http "$VM_REPO/firmware/example" KBPro_SIM.json
catalog=http://127.0.0.1:8080/
vm_bg sim-serve "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"

campaign=(--firmware latest --catalog "$catalog" --firmware-dir "$VM_OUT/firmware" --adapter hci0 --scan-backend hci
  --address "$kb" --object-delay 0 --retry-delay 1 --reconnect-delay 0.5 --timeout 10 --state-dir "$VM_OUT/state" --json)

vm_bg_split first timeout -k 2 180 "$BP" dfu update "${campaign[@]}" --scan 10 --attempts 1
rc=0
wait "$VM_BG_PID" || rc=$?
sed 's/^/    | /' "$VM_OUT/first.log" "$VM_OUT/first.out"
[[ $rc -ne 0 ]] || vm_fail "the first run exited 0 though every data write after byte 2000 dropped the link"
expect_json "$(cat "$VM_OUT/first.out")" <<CHECKS
first: the device failed mid-transfer :: .devices | length == 1 and .[0].address == "$kb" and .[0].result == "failed"
CHECKS
vm_file_has "is in its DFU bootloader" "$VM_OUT/sim-serve.log" || vm_fail "the device never went to its bootloader"
vm_log "ok: the first run gave up with the device in its bootloader (exit $rc)"
first_run=$(jq -r .run "$VM_OUT/first.out")

# A new run naming the device does not hear it, but hears its bootloader under the name the first run gave it
# (Dfu, the address, the attempt), leaves it alone, and names the run that finishes it.
expect_output_contains 120 "not seen, but its DFU bootloader is advertising (Dfu" \
  "$BP" dfu update "${campaign[@]}" --scan 5
expect_last_has "--resume $first_run" "the new run named the run that left the device in its bootloader"

vm_bg_split resumed timeout -k 2 180 "$BP" dfu update "${campaign[@]}" --scan 5 --resume "$first_run"
rc=0
wait "$VM_BG_PID" || rc=$?
sed 's/^/    | /' "$VM_OUT/resumed.log" "$VM_OUT/resumed.out" "$VM_OUT/sim-serve.log"
[[ $rc -eq 0 ]] || vm_fail "dfu update --resume last exited $rc"
expect_json "$(cat "$VM_OUT/resumed.out")" <<CHECKS
resumed: the device was updated from 5.12 to the catalogue's 5.14 :: .devices | length == 1 and .[0].address == "$kb" and .[0].result == "updated" and .[0].from == "5.12" and .[0].to == "5.14"
resumed: it delivered only what the bootloader lacked of the 4096-byte image :: .devices[0].imageBytes == 4096 and .devices[0].bytes > 0 and .devices[0].bytes < 4096
CHECKS
grep -qF "model and hardware from the fleet registry: $kb" "$VM_OUT/resumed.log" \
  || vm_fail "the resume did not say it took the device's model and hardware from the fleet registry"
! grep -qF "not seen, but" "$VM_OUT/resumed.log" || vm_fail "the resume called the device it finished not seen"
# From the jump to the new application, every link the served device took was its bootloader's: the resume
# went to the waiting bootloader, never back to an application (sim serve re-announces the bootloader after
# each dropped link, so its "is in its DFU bootloader" line comes once per link).
app_links=$(awk '/is in its DFU bootloader/ { inside = 1 } /left its DFU bootloader/ { inside = 0 }
  inside && /link from .* \(public\)$/ { n++ } END { print n + 0 }' "$VM_OUT/sim-serve.log")
[[ "$app_links" -eq 0 ]] || vm_fail "$app_links links reached the application while the device was in its bootloader"
grep -qF "left its DFU bootloader: new application fw_version 514 (V5.14)" "$VM_OUT/sim-serve.log" \
  || vm_fail "the served device did not activate V5.14"
vm_log "ok: the resume finished the transfer in the waiting bootloader"

expect_success 60 "$BP" read --adapter hci0 --scan-backend hci "$kb"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read: the device runs the catalogue's V5.14 :: .configuration.ver == "V5.14"
CHECKS
echo "PASS dfu-catalogue-resume ($VM_MODE)"
