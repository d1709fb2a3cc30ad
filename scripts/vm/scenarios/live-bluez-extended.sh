# The live BlueZ layer on dual-mode btvirt controllers (`btvirt -l2`, no -L), which are Bluetooth 5
# controllers: the kernel drives them with extended scan/advertising commands, so beacon-provision must use
# the extended commands too (docs/protocols/linux-ble.md §4 item 2). HCIAdvertiser on hci1, raw-HCI and mgmt scans on
# hci0, and an L2CAP CID 4 link hci0 -> hci1.
# vm-e2e-modes: plain
. "$VM_LIB"

vm_load_modules
vm_start_btmon
vm_bg btvirt btvirt -l2
vm_wait_for 30 "2 btvirt controllers" vm_hci_at_least 2
mapfile -t VM_CONTROLLERS < <(vm_hci_names)
vm_controllers_up
hci1=$(vm_address hci1)
ad=020106080962702D6C69766506FF5900010203
sr=03086270

expect_output_contains 30 "advertising on hci1 (extended commands)" \
  "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad"
expect_stream_contains 40 "$hci1 public connectable" "$BP" radio scan --adapter hci0 --backend hci --duration 30
[[ $VM_LAST_OUTPUT == *"$hci1 public connectable "*" $ad"* ]] || vm_fail "extended raw HCI scan: AD bytes differ"
expect_stream_contains 40 "$hci1 public scanResponse" "$BP" radio scan --adapter hci0 --backend hci --duration 30
vm_log "extended raw HCI scan on hci0 saw hci1's extended-command advertising and scan response"

vm_run 20 "$BP" radio advertise --adapter hci1 --off >/dev/null
vm_stream_start stream-mgmt "$BP" radio scan --adapter hci0 --backend mgmt --duration 40
sleep 4
vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad" >/dev/null
vm_stream_wait 40 "$hci1 public connectable"
vm_stream_stop

vm_bg listener "$BP" radio listen --adapter hci1 --timeout 60
vm_wait_for 20 "the listener" vm_file_has "listening on hci1" "$VM_OUT/listener.log"
expect_output_contains 60 "reply 0A0300" "$BP" radio connect --adapter hci0 "$hci1" 0A0300
echo "PASS live-bluez-extended"
