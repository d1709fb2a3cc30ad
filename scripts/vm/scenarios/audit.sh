# `audit` over the real kernel stack: two simulated KBeacon Pros served by `beacon-provision sim serve` on
# hci1 (public address) and hci2 (static random DD:34:02:06:D1:02), audited from hci0 against a profile whose
# inventory also names a device that is not on the air. The profile wants each device's name from the
# inventory: hci1's is what it already advertises (compliant), hci2's is not (drifted). A passive audit must
# see the drift on the air and the missing device; `audit --connect` must read both devices over L2CAP
# (the plan path, never a write) and report the name in the configuration read as well.
# vm-e2e-modes: plain bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: audit
. "$VM_LIB"

vm_setup 3
kb=$(vm_address hci1)
rnd=DD:34:02:06:D1:02
gone=DD:34:02:06:D1:09
vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/fleet.json" --adapter hci1 --adapter hci2 \
  --device DD:34:02:06:D1:01 --device "$rnd"
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"
vm_wait_for 40 "sim serve to advertise the random-address KBeacon" vm_file_has "on hci2 as $rnd (random)" "$VM_OUT/sim-serve.log"

site="$VM_OUT/site"
mkdir -p "$site"
printf 'address,name,tags\n%s,KBPro_VM01,hall\n%s,vm-renamed,hall\n%s,lost-one,store\n' "$kb" "$rnd" "$gone" >"$site/inventory.csv"
cat >"$site/site.json" <<JSON
{"version": 1, "inventory": "inventory.csv", "desired": {"name": "{{name}}"}}
JSON
# Raw HCI scans (see provision.sh: btvirt reports an advertiser once, as a scan starts).
common=(--adapter hci0 --scan-backend hci --scan 4 --state-dir "$VM_OUT/state")

set +e
"$BP" audit "$site/site.json" "${common[@]}" --format json --output "$VM_OUT/passive.json" --detailed-exitcode \
  >"$VM_OUT/passive.log" 2>&1
rc=$?
set -e
sed 's/^/    | /' "$VM_OUT/passive.log"
[[ $rc -eq 2 ]] || vm_fail "a passive audit with drift and a missing device should exit 2, got $rc"
expect_json "$(cat "$VM_OUT/passive.json")" <<CHECKS
passive: the hci1 device is compliant :: .devices[] | select(.address == "$kb") | .status == "compliant" and .heard
passive: the random-address device drifted, its name seen on the air :: .devices[] | select(.address == "$rnd") | .status == "drifted" and (.drift | any(.key == "name" and .expected == "vm-renamed" and .actual == "KBPro_VM02" and .source == "air"))
passive: the inventory's third device is missing :: .devices[] | select(.address == "$gone") | .status == "missing" and (.heard | not)
passive: the summary agrees :: .summary.status.compliant == 1 and .summary.status.drifted == 1 and .summary.status.missing == 1
passive: per tag :: (.summary.tags | map(.tag)) == ["hall", "store"]
passive: battery from the System frame :: .devices[] | select(.address == "$kb") | .battery.percent == 95
CHECKS

# Each read opens its own LE link; btvirt's handle bookkeeping needs the previous link gone before the next
# (gatt.sh), which the campaign's retry covers: --retry-delay 1 and up to three attempts.
set +e
timeout -k 2 150 "$BP" audit "$site/site.json" "${common[@]}" --connect --parallel 1 --format json \
  --output "$VM_OUT/connect.json" >"$VM_OUT/connect.log" 2>&1
rc=$?
set -e
sed 's/^/    | /' "$VM_OUT/connect.log"
[[ $rc -eq 0 ]] || vm_fail "audit --connect exited $rc"
expect_json "$(cat "$VM_OUT/connect.json")" <<CHECKS
connect: the mode is recorded :: .mode == "connect"
connect: the hci1 device was read and is compliant :: .devices[] | select(.address == "$kb") | .status == "compliant" and .model == "KBPro_SIM"
connect: the drifted name is in the configuration read too :: .devices[] | select(.address == "$rnd") | .status == "drifted" and (.drift | any(.key == "name" and .source == "read" and .actual == "KBPro_VM02"))
connect: still missing :: .devices[] | select(.address == "$gone") | .status == "missing"
CHECKS
grep -q 'link from .* closed after' "$VM_OUT/sim-serve.log" || vm_fail "sim serve saw no link"
vm_log "ok: audit --connect read the devices over L2CAP"
echo "PASS audit ($VM_MODE)"
