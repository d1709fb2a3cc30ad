# `beacon-provision gatt` on hci0 against a connectable KBeacon-like device served on hci1 by
# `beacon-provision sim serve` (scripts/vm/fleet.json, its first device): over real LE links through the
# kernel's L2CAP, list the GATT database, read two characteristics, write FEA1 with a Write Request and a
# Write Command, subscribe to FEA2 notifications (CCCD write); then the write → notify round trip of the
# KBeacon protocol: `beacon-provision read` authenticates (FEA1 writes, FEA2 notifications: MD5 challenge)
# and reads the configuration JSON from the simulated KBeacon behind the served link.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: gatt
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"
sed 's/^/    | /' "$VM_OUT/sim-serve.log"

expect_success 60 "$BP" gatt --adapter hci0 "$kb"
for line in "service 1800 Generic Access  handles 0x0001–0x0005" \
  "service 180A Device Information  handles 0x000A–0x0012" \
  "service FEA0 KBeacon Config  handles 0x0013–0x001B" \
  "characteristic FEA1 KBeacon Write  value 0x0015  [write-without-response, write]" \
  "characteristic FEA2 KBeacon Notify  value 0x0017  [notify]" \
  "descriptor 2902 Client Characteristic Configuration  0x0018" \
  "service FE59 Nordic Secure DFU  handles 0x001C–0x001F"; do
  grep -qF -- "$line" <<<"$VM_LAST_OUTPUT" || vm_fail "gatt services lacks '$line'"
done
vm_log "ok: the served database, handle for handle"

expect_output_contains 60 '"KBPro_VM01"' "$BP" gatt read --adapter hci0 "$kb" 2A00
expect_output_contains 60 '4B 4B 4D  "KKM"' "$BP" gatt read --adapter hci0 "$kb" 2A29
expect_output_contains 60 "wrote 4 octet(s) to 0x0015" "$BP" gatt write --adapter hci0 "$kb" FEA1 01020304
expect_output_contains 60 "wrote 2 octet(s) to 0x0015 (without response)" \
  "$BP" gatt write --adapter hci0 "$kb" FEA1 0506 --without-response
expect_stream_contains 60 "subscribed to FEA2 KBeacon Notify (value 0x0017)" "$BP" gatt notify --adapter hci0 "$kb" FEA2

# Write → notify round trip: KBeacon auth + JSON config read, over the air.
expect_success 90 "$BP" read --adapter hci0 "$kb"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read: a KBeacon Pro answered :: .generation == "pro"
read: its configuration carries the served name :: .configuration.name == "KBPro_VM01"
read: advertising slots came back :: .configuration.advObj | length > 0
CHECKS

# Commands that follow each other quickly share one LE link (the kernel keeps an idle link up for a moment),
# so the served side counts links, not commands.
vm_wait_for 30 "sim serve to log a served link" vm_file_has "closed after" "$VM_OUT/sim-serve.log"
sed 's/^/    | /' "$VM_OUT/sim-serve.log"
echo "PASS gatt ($VM_MODE)"
