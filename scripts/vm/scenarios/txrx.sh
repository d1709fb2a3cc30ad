# Text-stream devices over the real kernel stack: a simulated Nordic-UART AT device served on hci1
# by `sim serve` (scripts/vm/text-fleet.json, its first device), reached from hci0 over an L2CAP LE socket on
# CID 4 — MTU exchange, discovery of the Nordic UART Service, Tx notifications subscribed, commands written
# with response — by `txrx` (one command, several with --json), then `plan` / `apply` / a second `apply` of a
# `commands` profile (its reads through the GATT cache), and `txrx` again to read what apply set. One device
# only (written when Debian's btvirt linked a second peer unreliably, docs/protocols/vm-e2e.md pitfall 8); the
# reader has its own scenario (txrx-reader.sh).
# vm-e2e-modes: bluetoothd
# (With bluetoothd only, for the tier's time, as a gateway runs it: without bluetoothd, gatt.sh and
# provision.sh cover the same kind of link.)
# vm-e2e-requires: sim serve
# vm-e2e-requires: txrx
. "$VM_LIB"

vm_setup 2
at=$(vm_address hci1)
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/text-fleet.json" --device 6E:40:00:00:00:10 --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $at" "$VM_OUT/sim-serve.log"

# --address-type public: the served device has its controller's public address, so txrx connects without a
# scan. --timeout-next 1: a loaded TCG guest may space one answer's notifications beyond 200 ms.
txrx=(--adapter hci0 --address-type public --timeout-next 1)
expect_success 60 "$BP" txrx "$at" "AT+NAME?" "${txrx[@]}"
expect_last_has "+NAME:AT_VM01" "txrx AT+NAME? prints the served device's name"
expect_success 60 "$BP" txrx "$at" AT "AT+VERSION?" "${txrx[@]}" --json
expect_json "$VM_LAST_OUTPUT" <<CHECKS
txrx --json: AT answers OK :: .[0].command == "AT" and .[0].lines == ["OK"]
txrx --json: the version over the Nordic UART Service :: .[1].lines == ["+VERSION:SIM-AT 1.0", "OK"]
CHECKS

state="$VM_OUT/state"
profile="$VM_OUT/vm-commands.json"
cat >"$profile" <<JSON
{"version": 1, "select": {"addresses": ["$at"]},
 "commands": [
   {"query": "AT+NAME?", "expect": "+NAME:vm-dock", "set": "AT+NAME=vm-dock", "timeoutNext": 1},
   {"query": "AT+TXPOWER?", "expect": "/\\\\+TXPOWER:-4/", "set": "AT+TXPOWER=-4", "timeoutNext": 1}]}
JSON
common=(--adapter hci0 --scan-backend hci --scan 4 --retry-delay 1 --state-dir "$state")

expect_exit 2 120 "$BP" plan "$profile" "${common[@]}" --detailed-exitcode
expect_last_has 'command 0 AT+NAME?: answered "+NAME:AT_VM01 | OK" -> send "AT+NAME=vm-dock"' "plan lists the name change"
expect_success 180 "$BP" apply "$profile" "${common[@]}"
expect_last_has "1 updated" "apply set and verified the device"
expect_success 180 "$BP" apply "$profile" "${common[@]}"
expect_last_has "1 compliant" "the second apply finds the device compliant (no set sent)"
# plan and apply read the device through the state directory's GATT cache, as a KBeacon's reads are.
grep -q "{\"device\":\"$at/public\",\"entry\":{\"databaseHash\":\"[0-9A-F]\{32\}\".*6E400001-B5A3-F393-E0A9-E50E24DCCA9E" \
  "$state/gatt-cache.jsonl" || vm_fail "no GATT cache entry with the UART service for $at: $(cat "$state/gatt-cache.jsonl")"
vm_log "ok: the device's text-stream handles are in the GATT cache"

expect_success 60 "$BP" txrx "$at" "AT+NAME?" "AT+TXPOWER?" "${txrx[@]}"
expect_last_has "+NAME:vm-dock" "txrx reads back the name apply set"
expect_last_has "+TXPOWER:-4" "and its tx power"
echo "PASS txrx ($VM_MODE)"
