# The tool as the .deb installs it, used by someone who is not root, over the real kernel stack: a copy of
# the binary given the capabilities by the package's own postinst (scripts/package.d/postinst, its path
# swapped for the copy's: the guest's root is the host's, read-only), then run as the unprivileged user
# `nobody` with no capability of its own — `scan`, `read` and `apply` on hci0 against a simulated KBeacon Pro
# served on hci1 by `beacon-provision sim serve` (as root: the peer is not under test). Before the postinst,
# the same copy run as nobody says which capabilities it lacks and how to grant them, and exits non-zero.
# vm-e2e-modes: plain
# vm-e2e-requires: sim serve
# vm-e2e-requires: apply
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"

# The copy on the guest's tmpfs (which keeps extended attributes, as a gateway's ext4 does), and a state
# directory the user owns.
home=/tmp/nonroot
mkdir -p "$home/bin" "$home/state"
cp "$BP" "$home/bin/beacon-provision"
chmod 0755 "$home" "$home/bin" "$home/bin/beacon-provision"
chown 65534:65534 "$home/state"
copy="$home/bin/beacon-provision"
export PATH=$PATH:/usr/sbin:/sbin
# A command prefix: uid/gid 65534 with no supplementary groups, no inherited capabilities and a clean
# environment whose HOME is the user's state folder.
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
  env -i PATH=/usr/bin:/bin HOME="$home/state")
# json_as_nobody SECONDS CMD...: CMD's standard output (JSON) as nobody in VM_LAST_OUTPUT, its standard
# error shown; fails on a non-zero exit or a hang.
json_as_nobody() {
  local seconds=$1 rc=0; shift
  VM_LAST_OUTPUT=$(timeout -k 2 "$seconds" "${nobody[@]}" "$@" 2>"$home/stderr.txt") || rc=$?
  sed 's/^/    | /' "$home/stderr.txt"
  [[ $rc -ne 124 && $rc -ne 137 ]] || vm_fail "timed out after ${seconds}s: $*"
  [[ $rc -eq 0 ]] || vm_fail "'$*' as nobody exited $rc"
}

expect_exit 1 60 "${nobody[@]}" "$copy" scan --adapter hci0 --scan-backend hci --duration 2
[[ $VM_LAST_OUTPUT == *"lacks CAP_NET_RAW and CAP_NET_ADMIN"* ]] || vm_fail "scan as nobody did not name what it lacks"
[[ $VM_LAST_OUTPUT == *"setcap cap_net_raw,cap_net_admin+ep $copy"* ]] || vm_fail "scan as nobody did not say how to grant it"
vm_log "ok: without capabilities, scan as nobody names CAP_NET_RAW and CAP_NET_ADMIN and the setcap line"

sed "s|/usr/bin/beacon-provision|$copy|g" "$VM_REPO/scripts/package.d/postinst" >"$home/postinst"
expect_success 30 sh "$home/postinst" configure
expect_output_contains 10 "cap_net_admin,cap_net_raw=ep" getcap "$copy"
vm_log "ok: the package's postinst gave the copy cap_net_raw,cap_net_admin+ep"

common=(--adapter hci0 --scan-backend hci)
json_as_nobody 60 "$copy" scan --adapter hci0 --scan-backend hci --duration 3 --state-dir "$home/state" --json
expect_json "$VM_LAST_OUTPUT" <<CHECKS
scan as nobody hears the served KBeacon :: any(.[]; .address == "$kb")
CHECKS
# read keeps its registry under $XDG_STATE_HOME, here $HOME/.local/state: the user's own.
json_as_nobody 120 "$copy" read "$kb" "${common[@]}"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read as nobody returns the device's configuration :: .address == "$kb" and .generation == "pro"
CHECKS

profile="$home/profile.json"
cat >"$profile" <<JSON
{"version": 1, "select": {"addresses": ["$kb"]}, "desired": {"name": "vm-nobody"}}
JSON
chmod 0644 "$profile"
expect_success 180 "${nobody[@]}" "$copy" apply "$profile" "${common[@]}" --state-dir "$home/state" --scan 4 \
  --retry-delay 1
grep -q "1 updated" <<<"$VM_LAST_OUTPUT" || vm_fail "apply as nobody did not update the device"
[[ $(stat -c %u "$home/state/journal.sqlite") == 65534 ]] || vm_fail "the journal is not the user's own"
vm_log "ok: scan, read and apply as nobody through the capabilities the postinst set; the journal is nobody's"
echo "PASS nonroot ($VM_MODE)"
