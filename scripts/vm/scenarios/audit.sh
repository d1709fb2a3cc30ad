# `audit` over the real kernel stack: three simulated KBeacon Pros served by `beacon-provision sim serve` on
# hci1 (public address, advertising non-connectable), hci2 (static random DD:34:02:06:D1:02, connectable) and
# hci3 (public address, connectable), audited from hci0 against a profile whose inventory also names a device
# that is not on the air. The profile wants each device's name from the inventory: hci1's and hci3's are what
# they already advertise (compliant), hci2's is not (drifted). A passive audit must see the drift on the air
# and the missing device; `audit --connect --parallel 2` must read both connectable devices over L2CAP (the
# plan path, never a write) with their links up at once (btmon's record of hci0), report the name in the
# configuration read as well, and judge the non-connectable one by its advertisements. (Two links from one
# central need the tier's fixed btvirt: docs/protocols/vm-e2e.md pitfall 8.)
# vm-e2e-modes: plain
# (Plain mode only, for the tier's time: its links coexist with bluetoothd as gatt.sh and provision.sh
# show in that mode.)
# vm-e2e-requires: sim serve
# vm-e2e-requires: audit
. "$VM_LIB"

vm_setup 4
kb=$(vm_address hci1)
third=$(vm_address hci3)
rnd=DD:34:02:06:D1:02
gone=DD:34:02:06:D1:09
site="$VM_OUT/site"
mkdir -p "$site"
cat >"$site/fleet.json" <<JSON
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D1:01", "kind": "kbeaconPro", "name": "KBPro_VM01", "intervalMs": 300, "connectable": false,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"}},
  {"address": "$rnd", "addressType": "random", "kind": "kbeaconPro", "name": "KBPro_VM02", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"}},
  {"address": "DD:34:02:06:D1:03", "kind": "kbeaconPro", "name": "KBPro_VM03", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 80, "firmware": "5.12"}}]}
JSON
vm_bg sim-serve "$BP" sim serve --fleet "$site/fleet.json" --adapter hci1 --adapter hci2 --adapter hci3 \
  --device DD:34:02:06:D1:01 --device "$rnd" --device DD:34:02:06:D1:03
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"
vm_wait_for 40 "sim serve to advertise the random-address KBeacon" vm_file_has "on hci2 as $rnd (random)" "$VM_OUT/sim-serve.log"
vm_wait_for 40 "sim serve to advertise the third KBeacon" vm_file_has "on hci3 as $third" "$VM_OUT/sim-serve.log"

printf 'address,name,tags\n%s,KBPro_VM01,hall\n%s,vm-renamed,hall\n%s,KBPro_VM03,store\n%s,lost-one,store\n' \
  "$kb" "$rnd" "$third" "$gone" >"$site/inventory.csv"
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
passive: the summary agrees :: .summary.status.compliant == 2 and .summary.status.drifted == 1 and .summary.status.missing == 1
passive: per tag :: (.summary.tags | map(.tag)) == ["hall", "store"]
passive: battery from the System frame :: .devices[] | select(.address == "$kb") | .battery.percent == 95
CHECKS

set +e
timeout -k 2 150 "$BP" audit "$site/site.json" "${common[@]}" --connect --parallel 2 --format json \
  --output "$VM_OUT/connect.json" >"$VM_OUT/connect.log" 2>&1
rc=$?
set -e
sed 's/^/    | /' "$VM_OUT/connect.log"
[[ $rc -eq 0 ]] || vm_fail "audit --connect exited $rc"
expect_json "$(cat "$VM_OUT/connect.json")" <<CHECKS
connect: the mode is recorded :: .mode == "connect"
connect: the non-connectable hci1 device is judged by its advertisements :: .devices[] | select(.address == "$kb") | .status == "compliant" and (.drift | length == 0)
connect: the random-address device was read (its model comes from the read) :: .devices[] | select(.address == "$rnd") | .model == "KBPro_SIM"
connect: the drifted name is in the configuration read too :: .devices[] | select(.address == "$rnd") | .status == "drifted" and (.drift | any(.key == "name" and .source == "read" and .actual == "KBPro_VM02"))
connect: the hci3 device was read too, and is compliant :: .devices[] | select(.address == "$third") | .model == "KBPro_SIM" and .status == "compliant"
connect: still missing :: .devices[] | select(.address == "$gone") | .status == "missing"
CHECKS
vm_expect_links_at_once hci0 2 "audit --connect --parallel 2"
# The served device logs the link's end once the kernel lets its idle link go (about 2 s after the audit).
vm_wait_for 15 "the served device to see the read's link close" vm_file_has "hci2: link from" "$VM_OUT/sim-serve.log"
vm_wait_for 15 "the third served device to see the read's link close" vm_file_has "hci3: link from" "$VM_OUT/sim-serve.log"
vm_log "ok: audit --connect read the devices over L2CAP"
echo "PASS audit ($VM_MODE)"
