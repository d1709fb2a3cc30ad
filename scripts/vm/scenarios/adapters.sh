# Proves the tier: three btvirt LE controllers come up, `beacon-provision adapters --json` lists each
# with the address the kernel reports, and (a harness self-test with BlueZ's own tools) an advertisement
# set on hci1 through the mgmt API is seen by a mgmt discovery on hci0 — the virtual air works.
# vm-e2e-modes: plain bluetoothd
. "$VM_LIB"

vm_setup 3

# The product: every controller, by name and address, up.
expect_output_contains 30 '"name": "hci0"' "$BP" adapters --json
json=$VM_LAST_OUTPUT
for hci in "${VM_CONTROLLERS[@]}"; do
  address=$(vm_address "$hci")
  [[ $json == *"\"name\": \"$hci\""* ]] || vm_fail "adapters --json does not list $hci"
  [[ $json == *"\"address\": \"$address\""* ]] || vm_fail "adapters --json lacks $hci's address $address"
done
count=$(grep -c '"name": "hci' <<<"$json")
[[ $count -eq ${#VM_CONTROLLERS[@]} ]] || vm_fail "adapters --json lists $count adapters, kernel has ${#VM_CONTROLLERS[@]}"
[[ $(grep -c '"isUp": true' <<<"$json") -eq $count ]] || vm_fail "adapters --json: not every adapter is up"
vm_log "adapters --json lists ${VM_CONTROLLERS[*]} with their addresses, all up"
expect_output_contains 30 "hci2" "$BP" adapters

# Harness self-test: while a mgmt discovery runs on hci0, hci1 starts advertising a name (AD: complete
# local name "vm-air-check") through mgmt Add Advertising; hci0 must report it, from hci1's address.
# btmgmt talks to the kernel's mgmt API directly, so this works with or without bluetoothd.
name_hex=$(printf 'vm-air-check' | od -An -tx1 | tr -d ' \n')
hci1_address=$(vm_address hci1)
vm_stream_start discovery btmgmt --index 0 find -l
vm_stream_wait 15 "discovering on"
vm_run 15 btmgmt --index 1 add-adv -c -d "0d09${name_hex}" 1 >/dev/null
vm_stream_wait 15 "name vm-air-check"
vm_stream_stop
[[ $VM_LAST_OUTPUT == *"dev_found: $hci1_address"* ]] || vm_fail "hci0 saw the name but not from hci1 ($hci1_address)"
vm_log "the air works: hci0 discovered hci1 ($hci1_address) advertising 'vm-air-check'"
echo "PASS adapters ($VM_MODE)"
