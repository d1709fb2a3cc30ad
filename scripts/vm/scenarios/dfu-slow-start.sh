# A device whose new application starts late after a Nordic Secure DFU, over the real kernel stack: the served
# KBeacon (scripts/vm/dfu-fleet.json with `dfu.faults.silentAfterUpdateMs` 8000) neither advertises nor takes a
# link for 8 s after the bootloader activates the image, as while a bootloader copies the image into place.
# `dfu update --timeout 5 --attempts 1` reads the new version back: its first connect times out in the kernel
# (nothing advertises), and the campaign looks again off the link 2 s later (`FirmwareWork.identifyAfterTransfer`)
# instead of failing a device that was updated — one attempt, reported updated. A campaign without that
# second look fails here (a staged rollout at `--max-failures 0%` stopped site-wide on one such read-back).
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: dfu update
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
package="$VM_REPO/Tests/Fixtures/dfu/app_unsigned.zip"
fleet="$VM_OUT/fleet.json"
sed 's/"inactivityTimeoutMs": 120000 }/"inactivityTimeoutMs": 120000, "faults": { "silentAfterUpdateMs": 8000 } }/' \
  "$VM_REPO/scripts/vm/dfu-fleet.json" > "$fleet"
grep -q silentAfterUpdateMs "$fleet" || vm_fail "the fleet file did not get its fault"

# Raw HCI scanning and no re-announce, as in dfu.sh (the same served device).
vm_bg sim-serve "$BP" sim serve --fleet "$fleet" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"
vm_run_split dfu timeout -k 2 150 "$BP" dfu update --package "$package" --adapter hci0 --scan-backend hci \
  --address "$kb" --scan 10 --object-delay 0 --retry-delay 1 --timeout 5 --attempts 1 \
  --state-dir "$VM_OUT/state" --json
sed 's/^/    | /' "$VM_OUT/dfu.log" "$VM_OUT/dfu.out" "$VM_OUT/sim-serve.log"
[[ $VM_RC -eq 0 ]] || vm_fail "dfu update exited $VM_RC"
expect_json "$(cat "$VM_OUT/dfu.out")" <<CHECKS
dfu: the served KBeacon was updated in its one attempt :: .devices | length == 1 and .[0].address == "$kb" and .[0].result == "updated"
dfu: from V5.22 to V660.51 :: .devices[0].from == "5.22" and .devices[0].to == "660.51"
CHECKS
grep -qF "left its DFU bootloader: new application fw_version 66051" "$VM_OUT/sim-serve.log" \
  || vm_fail "sim serve did not log the new application"
grep -q "its version could not be read back (connect timeout" "$VM_OUT/dfu.log" \
  || vm_fail "dfu update did not meet the silent application (no read-back that timed out)"
vm_log "ok: the first read-back timed out while the application started, the next one read V660.51"
echo "PASS dfu-slow-start ($VM_MODE)"
