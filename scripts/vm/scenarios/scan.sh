# `beacon-provision scan` on hci0 finds and decodes three simulated devices served over real controllers
# by `beacon-provision sim serve` (scripts/vm/fleet.json): a connectable KBeacon Pro (KSensor + System
# frames, name and KKM 0x2080 data in its scan response) on hci1, a non-connectable iBeacon on hci2 and an
# Eddystone-URL beacon on hci3. Each served device takes its controller's address.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: scan
. "$VM_LIB"

vm_setup 4
kb=$(vm_address hci1) ib=$(vm_address hci2) ed=$(vm_address hci3)
# --reannounce-connectable: btvirt reports an advertiser only when advertising starts; re-announcing the
# KBeacon at every PDU (its interval is 0.3 s) shows both of its rotating frames to the scan (this
# scenario does not connect). A period of 4 PDUs would always land on the same one of its 2 frames.
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1 --adapter hci2 --adapter hci3 \
  --reannounce-connectable 0.3
vm_wait_for 40 "sim serve to advertise 3 devices" vm_file_has "on hci3 as" "$VM_OUT/sim-serve.log"
vm_wait_for 20 "sim serve to advertise 3 devices" vm_lines_at_least 3 '^serving ' "$VM_OUT/sim-serve.log"
sed 's/^/    | /' "$VM_OUT/sim-serve.log"

expect_success 60 "$BP" scan --adapter hci0 --duration 6 --json
json=$VM_LAST_OUTPUT
k=".[] | select(.address == \"$kb\")" i=".[] | select(.address == \"$ib\")" e=".[] | select(.address == \"$ed\")"
expect_json "$json" <<CHECKS
KBeacon ($kb) seen, connectable :: $k | .connectable
KBeacon name from its scan response :: $k | .name == "KBPro_VM01"
KBeacon KSensor frame decoded (21.5 °C, 40.25 %, 3012 mV) :: $k | .frames | any(.type == "kSensor" and .temperature == 21.5 and .humidity == 40.25 and .batteryMillivolts == 3012)
KBeacon System frame decoded with the served MAC :: $k | .frames | any(.type == "kkmSystem" and .macAddress == "$kb" and .model == 12 and .batteryPercent == 95)
KBeacon KKM 0x2080 scan response decoded :: $k | .frames | any(.type == "kkmScanResponse" and .batteryPercent == 95)
iBeacon ($ib) seen, non-connectable :: $i | .connectable == false
iBeacon frame decoded (E2C56DB5…, 7/42, -59 dBm) :: $i | .frames | any(.type == "iBeacon" and .uuid == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0" and .major == 7 and .minor == 42 and .measuredPower == -59)
Eddystone ($ed) seen, non-connectable :: $e | .connectable == false
Eddystone-URL frame decoded (https://www.example.com/vm, -20 dBm) :: $e | .frames | any(.type == "eddystoneURL" and .url == "https://www.example.com/vm" and .txPowerAt0m == -20)
CHECKS
echo "PASS scan ($VM_MODE)"
