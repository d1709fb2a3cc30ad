# The GATT cache over the real kernel stack: `beacon-provision read` on hci0 against a simulated KBeacon Pro
# served on hci1 by `beacon-provision sim serve` (scripts/vm/fleet.json, its first device), three times with
# one state directory. The first read discovers the table and saves the device's FEA0 handles and Database
# Hash in the state directory's gatt-cache.jsonl (a separate process); the second, another process, reads the
# hash and, finding it unchanged, skips discovery ("gatt cache … outcome=hit"); the third, with
# --no-gatt-cache, discovers as before and leaves the file alone. Every read authenticates and reads the
# configuration back, so the cached handles carried real FEA1 writes and FEA2 notifications. Then `audit
# --connect`, in a state directory of its own, reads the device and saves its handles in the same way.
# vm-e2e-modes: plain
# (Plain mode only, for the tier's time: its links coexist with bluetoothd as gatt.sh and provision.sh
# show in that mode.)
# vm-e2e-requires: sim serve
# vm-e2e-requires: read
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"

export XDG_STATE_HOME="$VM_OUT/state"
cache="$XDG_STATE_HOME/beacon-provision/gatt-cache.jsonl"
read_args=(read --adapter hci0 --scan-backend hci --address-type public "$kb" -v)

expect_output_contains 90 "gatt cache device=$kb outcome=no entry" "$BP" "${read_args[@]}"
expect_last_has 'KBPro_VM01' "the first read returned the configuration"
[[ -f $cache ]] || vm_fail "no $cache after the first read"
grep -q "{\"device\":\"$kb/public\",\"entry\":{\"databaseHash\":\"[0-9A-F]\{32\}\"" "$cache" || vm_fail "$cache lacks $kb's Database Hash: $(cat "$cache")"
vm_log "ok: the first read saved the device's handles and Database Hash"

expect_output_contains 90 "gatt cache device=$kb outcome=hit" "$BP" "${read_args[@]}"
expect_last_has 'KBPro_VM01' "the second read, on cached handles, returned the configuration"

before=$(sha256sum "$cache")
expect_success 90 "$BP" "${read_args[@]}" --no-gatt-cache
[[ $VM_LAST_OUTPUT != *"gatt cache"* ]] || vm_fail "--no-gatt-cache still used the cache"
[[ $(sha256sum "$cache") == "$before" ]] || vm_fail "--no-gatt-cache changed $cache"
vm_log "ok: --no-gatt-cache discovers and leaves the cache file alone"

# audit --connect reads through the same cache, in its own state directory: it saves the device's handles.
audit_state="$VM_OUT/audit-state"
profile="$VM_OUT/audit-profile.json"
echo "{\"version\": 1, \"select\": {\"addresses\": [\"$kb\"]}, \"desired\": {\"name\": \"KBPro_VM01\"}}" >"$profile"
expect_output_contains 120 "| $kb | KBPro\\_VM01 | compliant |" "$BP" audit "$profile" --connect --adapter hci0 \
  --scan-backend hci --scan 4 --state-dir "$audit_state"
grep -q "{\"device\":\"$kb/public\",\"entry\":{\"databaseHash\":\"[0-9A-F]\{32\}\"" "$audit_state/gatt-cache.jsonl" \
  || vm_fail "audit --connect saved no cache entry for $kb"
vm_log "ok: audit --connect read the device and saved its handles in its state directory's cache"
echo "PASS gatt-cache ($VM_MODE)"
