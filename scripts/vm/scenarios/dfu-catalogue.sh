# A catalogue campaign over the real kernel stack (docs/protocols/kbeacon.md §11, docs/protocols/nordic-dfu.md §2):
# `beacon-provision dfu update --firmware latest` on hci0, with the repository's example catalogue
# (firmware/example) served over HTTP by Debian's nginx on the guest's loopback (the guest kernel's TCP
# stack, libcurl in the CLI). It reads the served KBeacon's model (KBPro_SIM), hver (V1.0) and ver (V5.12,
# scripts/vm/catalogue-fleet.json), downloads and verifies KBPro_SIM_V514.zip into the firmware cache —
# before the device is sent to its bootloader; nginx's log shows one GET of it — and updates the device to
# V5.14 (the bootloader at its address +1 as an LE random address). A separate `read` shows V5.14; with
# nginx stopped, a `firmware fetch --offline` is served from the cache, and `firmware list` shows the package.
# vm-e2e-modes: plain
# vm-e2e-requires: sim serve
# vm-e2e-requires: firmware fetch
. "$VM_LIB"

vm_setup 2
kb=$(vm_address hci1)
sha514=5aeee5c44ffa910a3e6641526c992fcdb47a0b87a3663713a54690cf74e8f92e

vm_serve_http "$VM_REPO/firmware/example" KBPro_SIM.json
web="$VM_OUT/nginx"
nginx_pid=$VM_HTTP_PID
catalog=http://127.0.0.1:8080/
vm_log "ok: nginx serves firmware/example on $catalog"

vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/catalogue-fleet.json" --adapter hci1
vm_wait_for 40 "sim serve to advertise" vm_file_has "on hci1 as $kb" "$VM_OUT/sim-serve.log"
vm_bg_split dfu timeout -k 2 180 "$BP" dfu update --firmware latest --catalog "$catalog" --firmware-dir "$VM_OUT/firmware" \
  --adapter hci0 --scan-backend hci --address "$kb" --scan 10 --object-delay 0 --retry-delay 1 --timeout 10 \
  --state-dir "$VM_OUT/state" --json
dfu=$VM_BG_PID

rc=0
wait "$dfu" || rc=$?
sed 's/^/    | /' "$VM_OUT/dfu.log" "$VM_OUT/dfu.out"
[[ $rc -eq 0 ]] || vm_fail "dfu update --firmware latest exited $rc"
vm_log "ok: dfu update --firmware latest exited 0"
expect_json "$(cat "$VM_OUT/dfu.out")" <<CHECKS
dfu: one package resolved from the catalogue :: .packages | length == 1 and .[0].version == "V5.14" and .[0].sha256 == "$sha514"
dfu: the served KBeacon was updated :: .devices | length == 1 and .[0].address == "$kb" and .[0].result == "updated"
dfu: from V5.12 to V5.14 with the package's sha256 :: .devices[0].from == "5.12" and .devices[0].to == "5.14" and .devices[0].packageSHA256 == "$sha514"
CHECKS
grep -qF "KBPro_SIM_V514.zip V5.14 for KBPro_SIM V1.0: downloaded and verified" "$VM_OUT/dfu.log" \
  || vm_fail "the campaign did not say it fetched and verified the package"
gets=$(grep -c '"GET /KBPro_SIM_V514.zip HTTP/1.1" 200 ' "$web/access.log" || true)
[[ "$gets" -eq 1 ]] || vm_fail "nginx served the package $gets times (expected once): $(cat "$web/access.log")"
vm_log "ok: nginx served the catalogue and the package once over the guest's loopback"

expect_success 60 "$BP" read --adapter hci0 --scan-backend hci "$kb"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
read: the device runs the catalogue's V5.14 :: .configuration.ver == "V5.14"
CHECKS

vm_stop "$nginx_pid"
expect_output_contains 60 "verified, from the cache" "$BP" firmware fetch KBPro_SIM --hver V1.0 --catalog "$catalog" \
  --firmware-dir "$VM_OUT/firmware" --offline
expect_output_contains 30 "KBPro_SIM    V1.0    V5.14" "$BP" firmware list --firmware-dir "$VM_OUT/firmware"
echo "PASS dfu-catalogue ($VM_MODE)"
