# Never the wrong device, over the real kernel stack (docs/protocols/nordic-dfu.md §2.2): two KBeacons of two
# models at consecutive addresses, updated from one catalogue by one `dfu update --firmware latest`. A KBeacon Pro (KBPro_SIM, V5.12) is served on hci1 at the controller's public address P; a
# legacy KBeacon (KBN52_SIM, V3.12) on hci2 at the LE random address P − 1, so its bootloader comes up at
# P + 0 — the Pro's own address — and the Pro's at P + 1. (btvirt gives each controller a fixed public
# address; the legacy device's random address is what puts the two side by side.) The catalogue, served by
# nginx, offers each model a different image: the Pro V5.14 (firmware/example), the legacy KBeacon V660.51
# (nrfutil's app_unsigned.zip). Each device must end at its own model's release — read back by the campaign
# and by a separate `read` of each — and each bootloader must have activated the image meant for it, as the
# served devices themselves log.
#
# Both at once (--parallel 2, one adapter): the survey before the campaign holds a link to each device at the
# same time, and the scenario checks in btmon's record that hci0 really held two. The campaign itself keeps the
# two neighbours apart (AddressNeighbourhood): one waits, holding no link, while the other is updated, and says
# so on its progress line, which the scenario checks too. Debian's btvirt (BlueZ 5.66) could not — a
# central's second link got a connection handle its peripheral's controller did not know, and carried nothing
# (docs/protocols/vm-e2e.md pitfall 8) — so the tier runs BlueZ's btvirt built with our fix
# (scripts/vm/build-btvirt). Larger parallel campaigns on consecutive addresses are proven in the simulated
# tier (ConsecutiveAddressDFUTests: 20 runs of 30 devices at --parallel 5); this scenario proves the
# addresses over the kernel's LE links: the legacy device's bootloader, a random address equal in value to
# the Pro's public one, must be told apart by its type and its name.
# vm-e2e-modes: plain
# vm-e2e-requires: sim serve
# vm-e2e-requires: firmware fetch
. "$VM_LIB"

vm_setup 3
pro=$(vm_address hci1)
# The address one below the Pro's (the last octet − 1, no borrow: btvirt's addresses end in 01 or more).
legacy=$(printf '%s:%02X' "${pro%:*}" $(( 16#${pro##*:} - 1 )))
pro_bootloader=$(printf '%s:%02X' "${pro%:*}" $(( 16#${pro##*:} + 1 )))

cat >"$VM_OUT/fleet.json" <<FLEET
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D1:41", "kind": "kbeaconPro", "name": "KBPro_CON01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 90, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 120000}},
  {"address": "$legacy", "addressType": "random", "kind": "kbeaconLegacy", "name": "KBN52_CON02", "intervalMs": 300,
   "sensor": {"batteryMillivolts": 3100, "temperature": 18.5},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 120000}}
]}
FLEET

# The catalogue: firmware/example (KBPro_SIM V5.14) plus a KBN52_SIM release of another image.
catalogue="$VM_OUT/catalogue"
cp -r "$VM_REPO/firmware/example" "$catalogue"
cp "$VM_REPO/Tests/Fixtures/dfu/app_unsigned.zip" "$catalogue/KBN52_SIM_V66051.zip"
sha=$(sha256sum "$catalogue/KBN52_SIM_V66051.zip" | cut -d' ' -f1)
size=$(stat -c %s "$catalogue/KBN52_SIM_V66051.zip")
cat >"$catalogue/KBN52_SIM.json" <<JSON
{"V1.0": [{"appVersion": "V660.51", "appFileName": "KBN52_SIM_V66051.zip", "note": "the other model's image",
  "sha256": "$sha", "size": $size}]}
JSON

vm_serve_http "$catalogue" KBN52_SIM.json
catalog=http://127.0.0.1:8080/

vm_bg sim-serve "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci1 --adapter hci2
# Each adapter's line is waited for: `sim serve` brings them up together and says so in either order (the
# hci2 line first, the Pro's not yet written, failed a run that only checked hci1's once hci2's was there).
vm_wait_for 40 "sim serve to advertise the legacy device" vm_file_has "on hci2 as $legacy (random)" "$VM_OUT/sim-serve.log"
vm_wait_for 40 "sim serve to advertise the Pro at $pro" vm_file_has "on hci1 as $pro" "$VM_OUT/sim-serve.log"
vm_log "ok: the legacy KBeacon at $legacy (random), the Pro at $pro: consecutive"

vm_bg_split dfu timeout -k 2 240 "$BP" dfu update --firmware latest --catalog "$catalog" --firmware-dir "$VM_OUT/firmware" \
  --adapter hci0 --scan-backend hci --address "$pro" --address "$legacy" --parallel 2 --scan 10 --object-delay 0 \
  --retry-delay 1 --timeout 10 --state-dir "$VM_OUT/state" --json
dfu=$VM_BG_PID
rc=0
wait "$dfu" || rc=$?
sed 's/^/    | /' "$VM_OUT/dfu.log" "$VM_OUT/dfu.out" "$VM_OUT/sim-serve.log"
[[ $rc -eq 0 ]] || vm_fail "dfu update exited $rc"
expect_json "$(cat "$VM_OUT/dfu.out")" <<CHECKS
dfu: two packages, one per model :: .packages | length == 2
dfu: the Pro went from 5.12 to its model's 5.14 :: [.devices[] | select(.address == "$pro")][0] | .result == "updated" and .from == "5.12" and .to == "5.14"
dfu: the legacy KBeacon went from 3.12 to its model's 660.51 :: [.devices[] | select(.address == "$legacy")][0] | .result == "updated" and .from == "3.12" and .to == "660.51"
CHECKS

# The served devices' own account: each bootloader activated the image meant for its model.
for line in "hci1: DD:34:02:06:D1:41 left its DFU bootloader: new application fw_version 514 (V5.14)" \
  "hci2: $legacy left its DFU bootloader: new application fw_version 66051 (V660.51)" \
  "as $pro_bootloader (random)" "as $pro (random)"; do
  grep -qF -- "$line" "$VM_OUT/sim-serve.log" || vm_fail "sim serve did not log '$line'"
done
vm_log "ok: each bootloader activated its own model's image; the legacy one answered at the Pro's address"
grep -qE -- "^($pro  waiting for $legacy|$legacy  waiting for $pro), a neighbour being visited, to finish\$" "$VM_OUT/dfu.log" ||
  vm_fail "dfu update did not say that one neighbour waited for the other"
vm_log "ok: one neighbour waited for the other, and said so"
vm_expect_links_at_once hci0 2 "the survey of dfu update at --parallel 2"

expect_success 60 "$BP" read --adapter hci0 --scan-backend hci "$pro"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read: the Pro runs V5.14 :: .configuration.ver == "V5.14"
CHECKS
expect_success 60 "$BP" read --adapter hci0 --scan-backend hci "$legacy"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read: the legacy KBeacon runs V660.51 :: .configuration.ver == "V660.51"
CHECKS
echo "PASS dfu-consecutive ($VM_MODE)"
