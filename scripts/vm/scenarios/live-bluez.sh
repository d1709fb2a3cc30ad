# The live BlueZ layer on btvirt controllers: beacon-provision's HCIAdvertiser on hci1 (`radio advertise`)
# is seen by its raw-HCI scan and its mgmt discovery on hci0 (`radio scan --backend hci|mgmt`), and an
# L2CAP LE link on the ATT channel from hci0 to a listener on hci1 carries bytes both ways
# (`radio connect` / `radio listen`). With bluetoothd running, bluetoothd owns the ATT server socket
# (docs/protocols/linux-ble.md §4 item 4), so the client link is checked against bluetoothd's own GATT server instead.
# vm-e2e-modes: plain bluetoothd
. "$VM_LIB"

vm_setup 2
hci1=$(vm_address hci1)

# AD: flags (02 01 06), complete local name "bp-live" (08 09 62702D6C697665), manufacturer data
# 0x0059 + 3 bytes (06 FF 5900 010203). Scan response: short name "bp" (03 08 6270).
ad=020106080962702D6C69766506FF5900010203
sr=03086270
# --duration 0: switch advertising on and exit (it stays on in the controller).
expect_output_contains 30 "advertising on hci1" "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad"

# Raw HCI LE scan on hci0 (active): the advertisement and the scan response from hci1.
vm_stream_start stream-hci-active "$BP" radio scan --adapter hci0 --backend hci --duration 30
vm_stream_wait 40 "$hci1 public connectable"
vm_stream_wait 10 "$hci1 public scanResponse"
vm_stream_stop
[[ $VM_LAST_OUTPUT == *"$hci1 public connectable "*" $ad"* ]] || vm_fail "raw HCI scan: hci1's AD bytes differ"
[[ $VM_LAST_OUTPUT == *"$hci1 public scanResponse "*" $sr"* ]] || vm_fail "raw HCI scan: hci1's scan response differs"
vm_log "raw HCI scan on hci0 saw hci1's advertisement and scan response"

# Passive raw HCI scan: advertisements only.
expect_stream_contains 40 "$hci1 public connectable" "$BP" radio scan --adapter hci0 --backend hci --passive --duration 30

# mgmt discovery: the kernel drops reports that arrive before it has marked discovery as running, and
# the kernel's scan filters duplicates, so a btvirt advertiser heard within the same millisecond as the
# scan enable is never reported in that round. Real beacons advertise on their own schedule; here hci1
# starts advertising once the discovery runs (a beacon appearing mid-scan).
# mgmt_stream_sees NEEDLE CMD...: runs CMD with hci1 silent, then switches hci1's advertising on.
mgmt_stream_sees() {
  local needle=$1; shift
  vm_run 20 "$BP" radio advertise --adapter hci1 --off >/dev/null
  VM_STREAMS=$((VM_STREAMS + 1))
  vm_stream_start "stream-$VM_STREAMS" "$@"
  sleep 4 # the process starts and sends Start Discovery (TCG is slow)
  vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad" >/dev/null
  vm_stream_wait 40 "$needle"
  vm_stream_stop
}

# Kernel mgmt discovery on hci0 (the kernel merges AD + scan response into one Device Found).
mgmt_stream_sees "$hci1 public connectable" "$BP" radio scan --adapter hci0 --backend mgmt --duration 40
[[ $VM_LAST_OUTPUT == *"$ad$sr"* ]] || vm_fail "mgmt scan: hci1's AD + scan response bytes missing"
vm_log "mgmt discovery on hci0 saw hci1"

# The product command: `scan` on a live adapter through BlueZCentral, each backend.
expect_output_contains 60 "$hci1" "$BP" scan --adapter hci0 --scan-backend hci --duration 3 --jsonl
mgmt_stream_sees "$hci1" "$BP" scan --adapter hci0 --scan-backend mgmt --duration 9 --jsonl
vm_log "scan --adapter hci0 listed hci1 with both backends"

if [[ $VM_MODE == plain ]]; then
  # Hostile advertising data over the real radio path: flags, a name of ESC ] 0 ; p w n d BEL (a terminal
  # title escape) and an Apple structure whose length byte runs past the end. `scan` lists hci1, shows the
  # name escaped, and no control byte reaches the terminal.
  hostile=0201060A091B5D303B70776E64071AFF4C000215E2C5
  vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 "$hostile" >/dev/null
  expect_success 60 "$BP" scan --adapter hci0 --scan-backend hci --duration 3
  [[ $VM_LAST_OUTPUT == *"$hci1"* ]] || vm_fail "scan did not list hci1 advertising hostile data"
  [[ $VM_LAST_OUTPUT == *'\u{1B}]0;pwnd\u{07}'* ]] || vm_fail "scan did not show the hostile name escaped"
  [[ $VM_LAST_OUTPUT != *$'\e'* && $VM_LAST_OUTPUT != *$'\a'* ]] || vm_fail "a control byte reached the terminal"
  vm_log "scan listed hci1 advertising a length past the end and an escape-laden name, escaped"
  vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad" >/dev/null
fi

# auto picks mgmt whenever the management channel answers.
expect_output_contains 20 "with the mgmt backend" "$BP" radio scan --adapter hci0 --duration 1

if [[ $VM_MODE == plain ]]; then
  vm_bg listener "$BP" radio listen --adapter hci1 --timeout 60
  vm_wait_for 20 "the listener" vm_file_has "listening on hci1" "$VM_OUT/listener.log"
  expect_output_contains 60 "reply 02170048454C4C4F" "$BP" radio connect --adapter hci0 "$hci1" 02170048454C4C4F
  vm_wait_for 10 "the listener to log the bytes" vm_file_has "received 02170048454C4C4F" "$VM_OUT/listener.log"
  sed 's/^/    | /' "$VM_OUT/listener.log"
  vm_log "L2CAP CID 4 hci0 -> hci1 carried bytes both ways"
fi

if [[ $VM_MODE == bluetoothd ]]; then
  # A client link works alongside bluetoothd: hci1's ATT server is bluetoothd's own GATT server, which
  # answers our Exchange MTU Request (02, client MTU 0x0017) with an Exchange MTU Response (03, MTU).
  # bluetoothd on hci1 may also send its own Exchange MTU Request (02…) first (docs/protocols/linux-ble.md §4 item 4).
  expect_output_contains 60 "reply 03" "$BP" radio connect --adapter hci0 --replies 2 "$hci1" 021700
  vm_log "L2CAP CID 4 hci0 -> bluetoothd's GATT server on hci1: MTU exchange answered"
  # The whole client stack: BlueZCentral.connect -> FileDescriptorBearer -> GATTClient discovery + read.
  vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad" # connectable again
  expect_output_contains 90 "service 1800" "$BP" radio gatt --adapter hci0 "$hci1"
  [[ $VM_LAST_OUTPUT == *"characteristic 2A00"* ]] || vm_fail "GATT discovery lacks the Device Name characteristic"
  vm_log "BlueZCentral.connect + GATTClient discovered bluetoothd's GATT database on hci1"
  # The product commands over the same live path (CentralFactory -> BlueZCentral).
  vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad" >/dev/null
  expect_output_contains 90 "2A00" "$BP" gatt services --adapter hci0 --address-type public "$hci1"
  vm_run 20 "$BP" radio advertise --adapter hci1 --duration 0 --scan-response "$sr" "$ad" >/dev/null
  expect_output_contains 90 "BlueZ" "$BP" gatt read --adapter hci0 --address-type public "$hci1" 2A00
  vm_log "gatt services / gatt read on a live adapter work"
fi

# Non-connectable advertising is reported as such.
expect_output_contains 30 "advertising on hci1" "$BP" radio advertise --adapter hci1 --non-connectable --duration 0 "$ad"
expect_stream_contains 40 "$hci1 public nonConnectable" "$BP" radio scan --adapter hci0 --backend hci --duration 30
echo "PASS live-bluez ($VM_MODE)"
