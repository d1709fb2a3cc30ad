# The KBeacon protocol and the profile engine over the real kernel stack: `ring` and the main job —
# `plan`, `apply`, a second `apply` that changes nothing, `apply --resume last` of that finished run (no scan),
# and `plan --detailed-exitcode` — then `reset`, on hci0
# against a simulated KBeacon Pro served on hci1 by `beacon-provision sim serve` (scripts/vm/fleet.json,
# its first device), and a scan that shows the applied name and iBeacon on the air. Every step scans through
# the kernel (raw HCI), connects an L2CAP LE socket on CID 4, authenticates with the MD5 challenge and
# reads/writes the configuration JSON.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: apply
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
# btvirt reports an advertiser once, when scanning or advertising is enabled, and a kernel mgmt discovery drops
# that report while it is still starting; so ring/plan/apply scan with raw HCI (--scan-backend hci), which hears the
# served device as its scan starts. The device is not re-announced: an LE Create Connection that lands in a
# re-announce's off-gap fails at once in btvirt, and the kernel (6.1) then hangs every connect to that peer.
# (live-bluez.sh covers the mgmt backend; the scans stop early, once the profile's one device is heard.)
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"

expect_output_contains 60 "$kb: ringing for 500 ms" "$BP" ring --adapter hci0 --scan-backend hci "$kb" --milliseconds 500

state="$VM_OUT/state"
profile="$VM_OUT/vm-profile.json"
cat >"$profile" <<JSON
{"version": 1, "select": {"addresses": ["$kb"]},
 "desired": {"name": "vm-applied", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 7, "minor": 9, "intervalMs": 760},
                                             {"slot": 1, "type": "off"}]}}
JSON
common=(--adapter hci0 --scan-backend hci --scan 4 --retry-delay 1 --state-dir "$state")

expect_exit 2 180 "$BP" plan "$profile" "${common[@]}" --detailed-exitcode
expect_last_has 'device name: "KBPro_VM01" -> "vm-applied"' "plan shows the changes"

expect_success 180 "$BP" apply "$profile" "${common[@]}"
grep -q "1 updated" <<<"$VM_LAST_OUTPUT" || vm_fail "apply did not update the device"
vm_log "ok: apply wrote and verified the device"

expect_success 180 "$BP" apply "$profile" "${common[@]}"
grep -q "1 compliant" <<<"$VM_LAST_OUTPUT" || vm_fail "the second apply should find the device compliant"
vm_log "ok: the second apply changes nothing"

# Resuming the newest run, which has nothing left, says so without scanning the air first.
expect_success 60 "$BP" apply "$profile" "${common[@]}" --resume last
expect_last_has "every device of the run has finished; nothing left to do" "apply --resume last of a finished run finds nothing left"
[[ $VM_LAST_OUTPUT != *"scanning"* ]] || vm_fail "apply --resume last of a finished run scanned first"
vm_log "ok: and does not scan for it"

# The served KBeacon advertises its configuration: after apply, its name and slot 0's iBeacon are the profile's
# (slot 1, its System frame, is switched off, so the one report a btvirt scan gets is the iBeacon).
expect_success 60 "$BP" scan --adapter hci0 --scan-backend hci --duration 3 --json
expect_json "$VM_LAST_OUTPUT" <<CHECKS
scan after apply: the device advertises the applied name :: .[] | select(.address == "$kb") | .name == "vm-applied"
scan after apply: and the applied iBeacon 7/9 :: .[] | select(.address == "$kb") | .frames | any(.type == "iBeacon" and .major == 7 and .minor == 9)
CHECKS

expect_success 120 "$BP" plan "$profile" "${common[@]}" --detailed-exitcode
vm_log "ok: plan --detailed-exitcode exits 0"

# `reset` erases what apply wrote, so it is confirmed: without --yes and without a terminal it is refused (exit
# 64) before any link; with --yes the device is back at its factory configuration, which plan shows as changes.
expect_exit 64 60 "$BP" reset "$kb" --adapter hci0 --scan-backend hci </dev/null
expect_last_has "pass --yes to confirm" "the refused reset says how to confirm"
expect_output_contains 60 "$kb: settings reset to factory defaults" "$BP" reset "$kb" --adapter hci0 --scan-backend hci --yes
expect_exit 2 180 "$BP" plan "$profile" "${common[@]}" --detailed-exitcode
expect_last_has 'device name: "KBPro_VM01" -> "vm-applied"' "plan after the reset shows the factory name again"
vm_log "ok: reset refused without --yes, done with it, the factory configuration back"
echo "PASS provision ($VM_MODE)"
