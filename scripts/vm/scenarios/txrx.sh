# Text-stream devices over the real kernel stack (issue #14): a simulated Nordic-UART AT device served on hci1
# by `sim serve` (scripts/vm/text-fleet.json, its first device), reached from hci0 over an L2CAP LE socket on
# CID 4 — MTU exchange, discovery of the Nordic UART Service, Tx notifications subscribed, commands written
# with response — by `txrx` (one command, several with --json), then `plan` / `apply` / a second `apply` of a
# `commands` profile, and `txrx` again to read what apply set. One device only: btvirt links a second peer
# unreliably within a run, so the reader has its own scenario (txrx-reader.sh).
# vm-e2e-modes: plain bluetoothd
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
[[ $VM_LAST_OUTPUT == *"+NAME:AT_VM01"* && $VM_LAST_OUTPUT == *"OK"* ]] || vm_fail "txrx AT+NAME? did not print the served name"
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

set +e
"$BP" plan "$profile" "${common[@]}" --detailed-exitcode >"$VM_OUT/plan1.txt" 2>&1
rc=$?
set -e
sed 's/^/    | /' "$VM_OUT/plan1.txt"
[[ $rc -eq 2 ]] || vm_fail "plan should exit 2 (changes planned), got $rc"
grep -q 'command 0 AT+NAME?: answered "+NAME:AT_VM01 | OK" -> send "AT+NAME=vm-dock"' "$VM_OUT/plan1.txt" || vm_fail "plan lacks the name change"
vm_log "ok: plan shows the changes (exit 2)"

expect_success 180 "$BP" apply "$profile" "${common[@]}"
grep -q "1 updated" <<<"$VM_LAST_OUTPUT" || vm_fail "apply did not update the device"
vm_log "ok: apply set and verified the device"

expect_success 180 "$BP" apply "$profile" "${common[@]}"
grep -q "1 compliant" <<<"$VM_LAST_OUTPUT" || vm_fail "the second apply should find the device compliant (no set sent)"
vm_log "ok: the second apply sends no set"

expect_success 60 "$BP" txrx "$at" "AT+NAME?" "AT+TXPOWER?" "${txrx[@]}"
[[ $VM_LAST_OUTPUT == *"+NAME:vm-dock"* && $VM_LAST_OUTPUT == *"+TXPOWER:-4"* ]] || vm_fail "txrx does not read back what apply set"
echo "PASS txrx ($VM_MODE)"
