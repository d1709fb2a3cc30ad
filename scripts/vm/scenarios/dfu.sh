# A whole Nordic Secure DFU over the real kernel stack (docs/protocols/nordic-dfu.md §2): `beacon-provision dfu update`
# on hci0 updates a simulated KBeacon Pro served on hci1 by `sim serve` (scripts/vm/dfu-fleet.json: `ver`
# V5.22, bootloader hardware version 52) with nrfutil's app_unsigned.zip (application fw_version 66051 =
# V660.51, hw_version 52). The campaign reads the device's version over an authenticated KBeacon session,
# writes the buttonless "set name" and "enter bootloader" (FE59 / 8EC90003), and the served device drops
# the link and becomes its bootloader at its address +1 as an LE random address (LE Set Random Address on
# hci1); the campaign finds it there, sends init packet and firmware through Control Point and Packet,
# the bootloader activates the image and the device advertises as the application again at its public
# address, now reporting V660.51 — which the campaign and a separate `read` check.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: dfu update
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
# The bootloader's address: the last octet + 1, no carry (the SDK's addr[0] += 1).
bootloader=$(printf '%s:%02X' "${kb%:*}" $(( (16#${kb##*:} + 1) % 256 )))
package="$VM_REPO/Tests/Fixtures/dfu/app_unsigned.zip"

# The campaign scans with raw HCI (--scan-backend hci): btvirt reports an advertiser only when advertising or
# scanning is enabled, and a raw scan hears the served device as it starts (a kernel mgmt discovery drops that
# report while it is still starting). The device is not re-announced: a connect landing in a re-announce's
# off-gap fails in btvirt and wedges the kernel's connects to that peer. The scan ends once the device is heard.
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/dfu-fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"
vm_bg_split dfu timeout -k 2 150 "$BP" dfu update --package "$package" --adapter hci0 --scan-backend hci \
  --address "$kb" --scan 10 --object-delay 0 --retry-delay 1 --timeout 10 --state-dir "$VM_OUT/state" --json
dfu=$VM_BG_PID

rc=0
wait "$dfu" || rc=$?
sed 's/^/    | /' "$VM_OUT/dfu.log" "$VM_OUT/dfu.out"
[[ $rc -eq 0 ]] || vm_fail "dfu update exited $rc"
vm_log "ok: dfu update exited 0"
expect_json "$(cat "$VM_OUT/dfu.out")" <<CHECKS
dfu: the package installs 660.51 :: .version == "660.51"
dfu: the served KBeacon was updated :: .devices | length == 1 and .[0].address == "$kb" and .[0].result == "updated"
dfu: from V5.22 to V660.51 :: .devices[0].from == "5.22" and .devices[0].to == "660.51"
dfu: all 10000 bytes of app.bin went over :: .devices[0].bytes == 10000
dfu: the bootloader answered at the address + 1, as a random address :: .devices[0].bootloader == "$bootloader" and .devices[0].bootloaderAddressType == "random"
CHECKS

sed 's/^/    | /' "$VM_OUT/sim-serve.log"
for line in "is in its DFU bootloader: advertising \"Dfu" "as $bootloader (random)" "to the DFU bootloader" \
  "left its DFU bootloader: new application fw_version 66051 (V660.51)"; do
  grep -qF -- "$line" "$VM_OUT/sim-serve.log" || vm_fail "sim serve did not log '$line'"
done
vm_log "ok: the served device went application → bootloader at $bootloader → new application"
# Its identity reads went through the state directory's GATT cache (the served application keeps its table).
grep -q "{\"device\":\"$kb/public\",\"entry\":{\"databaseHash\":\"[0-9A-F]\{32\}\"" "$VM_OUT/state/gatt-cache.jsonl" \
  || vm_fail "dfu update saved no GATT cache entry for $kb"
vm_log "ok: dfu update's identity reads saved the device's handles in the GATT cache"

# A separate command, a fresh link to the application's public address: the new version is what it reports.
expect_success 60 "$BP" read --adapter hci0 --scan-backend hci "$kb"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read: the device runs the new application :: .configuration.ver == "V660.51"
CHECKS
echo "PASS dfu ($VM_MODE)"
