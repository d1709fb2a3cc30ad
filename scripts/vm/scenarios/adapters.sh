# Proves the tier: three btvirt LE controllers come up, `beacon-provision adapters --json` lists each
# with the address the kernel reports, and (a harness self-test with BlueZ's own tools) an advertisement
# set on hci1 through the mgmt API is seen by a mgmt discovery on hci0 — the virtual air works.
# vm-e2e-modes: plain bluetoothd
. "$VM_LIB"

vm_setup 3

# The product: every controller, by name and address, up.
expect_output_contains 30 '"name" : "hci0"' "$BP" adapters --json
json=$VM_LAST_OUTPUT
for hci in "${VM_CONTROLLERS[@]}"; do
  address=$(vm_address "$hci")
  [[ $json == *"\"name\" : \"$hci\""* ]] || vm_fail "adapters --json does not list $hci"
  [[ $json == *"\"address\" : \"$address\""* ]] || vm_fail "adapters --json lacks $hci's address $address"
done
count=$(grep -c '"name" : "hci' <<<"$json")
[[ $count -eq ${#VM_CONTROLLERS[@]} ]] || vm_fail "adapters --json lists $count adapters, kernel has ${#VM_CONTROLLERS[@]}"
[[ $(grep -c '"isUp" : true' <<<"$json") -eq $count ]] || vm_fail "adapters --json: not every adapter is up"
vm_log "adapters --json lists ${VM_CONTROLLERS[*]} with their addresses, all up"
expect_output_contains 30 "hci2" "$BP" adapters

# Harness self-test: hci1 advertises a name (AD: flags 06, complete local name "vm-air-check") through
# mgmt Add Advertising; a mgmt discovery on hci0 must report it (btmgmt works with or without bluetoothd).
name_hex=$(printf 'vm-air-check' | od -An -tx1 | tr -d ' \n')
vm_run 15 btmgmt --index 1 add-adv -c -d "0d09${name_hex}" -g 1 >/dev/null
hci1_address=$(vm_address hci1)
expect_output_contains 30 "$hci1_address" btmgmt --index 0 find -l
[[ $VM_LAST_OUTPUT == *vm-air-check* ]] || vm_fail "hci0 saw hci1 but not its advertised name"
vm_log "the air works: hci0 discovered hci1 ($hci1_address) advertising 'vm-air-check'"
echo "PASS adapters ($VM_MODE)"
