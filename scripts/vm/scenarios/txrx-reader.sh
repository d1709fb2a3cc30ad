# A simulated Tertium TxRx reader served on hci1 by `sim serve` (scripts/vm/text-fleet.json, its second device)
# and `txrx` on hci0 over the real kernel stack: its INVENTORY answer (12 tags, about 470 bytes)
# comes in several notifications of the profile's 240-byte packets, longer than one ATT MTU, and is gathered
# until the device falls silent. Its own scenario: btvirt links a second peer unreliably within a run.
# vm-e2e-modes: plain
# (Plain mode only, for the tier's time: its scans and links coexist with bluetoothd as scan.sh and gatt.sh
# show in that mode.)
# vm-e2e-requires: sim serve
# vm-e2e-requires: txrx
. "$VM_LIB"

vm_setup 2
reader=$(vm_address hci1)
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/text-fleet.json" --device C7:08:00:00:00:10 --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $reader" "$VM_OUT/sim-serve.log"

expect_success 60 "$BP" txrx "$reader" VER INVENTORY --adapter hci0 --address-type public --timeout-next 1 --json
expect_json "$VM_LAST_OUTPUT" <<CHECKS
the reader's profile is detected by its service :: .[0].lines == ["TxRx-SIM 1.0 tertium-txrx"]
INVENTORY lists 12 tags, then OK :: (.[1].lines | map(select(startswith("EPC="))) | length) == 12 and .[1].lines[-1] == "OK"
INVENTORY came in several notifications :: .[1].notifications >= 2
CHECKS
echo "PASS txrx-reader ($VM_MODE)"
