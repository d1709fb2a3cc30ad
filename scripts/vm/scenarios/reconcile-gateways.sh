# Two gateways keeping one site converged over the real kernel stack: `beacon-provision reconcile` on hci0
# (gw-1) and on hci3 (gw-2), each with its own state directory as separate machines have, sharing a real
# PostgreSQL journal (Debian's server, started in the guest on a Unix socket), against two simulated KBeacon
# Pros served by `beacon-provision sim serve` on hci1 and hci2. Both gateways hear both devices (btvirt's
# air gives every controller the same signal, so the nearest-gateway rule leaves each device to whichever
# gateway claims it first). Each device must be written exactly once across the site — one `converged`
# with keys in one gateway's events, `converged-elsewhere` in the other's when it had the device due, and
# a link from the writer's controller in the served device's own log — then, with --firmware latest (the
# repository's example catalogue, file://), updated from 5.12 to 5.14 exactly once through the shared
# firmware run: one `firmware-updated` across the gateways and one image activated in the device's own
# log — staged by one site-wide rollout (`--rollout canary=1,waves=100%`, kept in the journal): its canary and
# its wave each end once across the gateways. Both gateways then leave the site alone until SIGTERM stops
# them with status 0.
#
# One link at a time per gateway (--parallel 1): two centrals sharing the site is what this scenario adds
# (several links from one central are dfu-consecutive's and audit's, docs/protocols/vm-e2e.md pitfall 8).
# Run with bluetoothd only, as a gateway runs it.
# vm-e2e-modes: bluetoothd
# vm-e2e-requires: sim serve
# vm-e2e-requires: reconcile
. "$VM_LIB"

vm_setup 4
first=$(vm_address hci1)
second=$(vm_address hci2)
central1=$(vm_address hci0)
central2=$(vm_address hci3)

vm_postgres site
journal=$VM_JOURNAL

cat >"$VM_OUT/fleet.json" <<'JSON'
{"version": 1, "devices": [
  {"address": "DD:34:02:06:D3:01", "kind": "kbeaconPro", "name": "KBPro_G01", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 120000}},
  {"address": "DD:34:02:06:D3:02", "kind": "kbeaconPro", "name": "KBPro_G02", "intervalMs": 300,
   "system": {"model": 12, "batteryPercent": 95, "firmware": "5.12"},
   "dfu": {"hardwareVersion": 52, "inactivityTimeoutMs": 120000}}]}
JSON
profile="$VM_OUT/site.json"
cat >"$profile" <<JSON
{"version": 1, "select": {"addresses": ["$first", "$second"]},
 "desired": {"name": "vm-site", "slots": [{"slot": 0, "type": "ibeacon", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 9, "minor": 2, "intervalMs": 760},
                                         {"slot": 1, "type": "off"}]}}
JSON

vm_bg serve-1 "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci1 --device DD:34:02:06:D3:01
serve1=$VM_BG_PID
vm_bg serve-2 "$BP" sim serve --fleet "$VM_OUT/fleet.json" --adapter hci2 --device DD:34:02:06:D3:02
serve2=$VM_BG_PID
vm_wait_for 40 "sim serve to advertise on hci1" vm_file_has "on hci1 as $first" "$VM_OUT/serve-1.log"
vm_wait_for 40 "sim serve to advertise on hci2" vm_file_has "on hci2 as $second" "$VM_OUT/serve-2.log"

gateway() { # gateway NAME ADAPTER
  vm_bg_split "$1" "$BP" reconcile "$profile" --adapter "$2" --scan-backend hci --window 4 --jsonl --parallel 1 \
    --backoff-base 2 --state-dir "$VM_OUT/state-$1" --journal "$journal" --gateway "$1" --gateways 2 --settle 60 \
    --lease 20 --firmware latest --catalog "file://$VM_REPO/firmware/example" --firmware-dir "$VM_OUT/firmware-$1" \
    --rollout canary=1,waves=100%
}
gateway gw-1 hci0
gw1=$VM_BG_PID
gateway gw-2 hci3
gw2=$VM_BG_PID

wrote() { printf '"address":"%s".*"event":"converged","keys":\\["' "$1"; }
written_somewhere() { # written_somewhere ADDRESS: one of the gateways wrote it
  vm_lines_at_least 1 "$(wrote "$1")" "$VM_OUT/gw-1.out" || vm_lines_at_least 1 "$(wrote "$1")" "$VM_OUT/gw-2.out"
}
updated() { printf '"address":"%s".*"event":"firmware-updated"' "$1"; }
updated_somewhere() { # updated_somewhere ADDRESS: one of the gateways updated its firmware
  vm_lines_at_least 1 "$(updated "$1")" "$VM_OUT/gw-1.out" || vm_lines_at_least 1 "$(updated "$1")" "$VM_OUT/gw-2.out"
}
for device in "$first" "$second"; do
  vm_wait_for 240 "a gateway to write $device" written_somewhere "$device"
  vm_log "ok: $device written"
done
for device in "$first" "$second"; do
  vm_wait_for 240 "a gateway to update the firmware of $device" updated_somewhere "$device"
  vm_log "ok: $device updated"
done
# Three more windows: a converged site is left alone by both.
vm_sleep 13
kill -TERM "$gw1" "$gw2"
for name in gw-1 gw-2; do
  pid=$gw1
  [[ $name == gw-2 ]] && pid=$gw2
  vm_wait_for 60 "$name to stop on SIGTERM" eval "! kill -0 $pid"
  set +e
  wait "$pid"
  rc=$?
  set -e
  sed "s/^/    $name | /" "$VM_OUT/$name.out"
  sed "s/^/    $name | /" "$VM_OUT/$name.log"
  [[ $rc -eq 0 ]] || vm_fail "$name should exit 0 when stopped by SIGTERM, got $rc"
done
sed 's/^/    serve-1 | /' "$VM_OUT/serve-1.log"
sed 's/^/    serve-2 | /' "$VM_OUT/serve-2.log"

for device in "$first" "$second"; do
  n1=$(grep -c "$(wrote "$device")" "$VM_OUT/gw-1.out" || true)
  n2=$(grep -c "$(wrote "$device")" "$VM_OUT/gw-2.out" || true)
  [[ $((n1 + n2)) -eq 1 ]] || vm_fail "$device was written $n1 times by gw-1 and $n2 times by gw-2 (wanted once)"
  writer=gw-1 other=gw-2 central=$central1 foreign=$central2
  [[ $n2 -eq 1 ]] && writer=gw-2 other=gw-1 central=$central2 foreign=$central1
  vm_log "ok: $device written once, by $writer"
  # The other gateway either had it due and learnt it from the journal, or found it compliant on the air.
  if grep -q "\"address\":\"$device\".*\"event\":\"converged\"" "$VM_OUT/$other.out"; then
    grep -q "\"address\":\"$device\".*\"event\":\"converged\",\"keys\":\[\]" "$VM_OUT/$other.out" \
      || grep -q "\"address\":\"$device\".*\"event\":\"converged-elsewhere\"" "$VM_OUT/$other.out" \
      || vm_fail "$other reports $device converged without the writer's run"
  fi
  # The served device's own log: every link it took came from the writer's controller.
  log="$VM_OUT/serve-1.log"
  [[ $device == "$second" ]] && log="$VM_OUT/serve-2.log"
  grep -q "link from $central" "$log" || vm_fail "$device shows no link from $writer's controller $central"
  # The other gateway's links to it, if any, are its firmware survey's read-only ones: btvirt reports no RSSI,
  # so neither gateway heard a device clearly better and each surveys both (docs/guide/several-gateways.md).
  if grep -q "link from $foreign" "$log"; then vm_log "note: $other's controller linked to $device (its survey)"; fi
done
for device in "$first" "$second"; do
  n1=$(grep -c "$(updated "$device")" "$VM_OUT/gw-1.out" || true)
  n2=$(grep -c "$(updated "$device")" "$VM_OUT/gw-2.out" || true)
  [[ $((n1 + n2)) -eq 1 ]] || vm_fail "$device was updated $n1 times by gw-1 and $n2 times by gw-2 (wanted once)"
  grep -h "$(updated "$device")" "$VM_OUT/gw-1.out" "$VM_OUT/gw-2.out" | grep -q '"from":"5.12".*"to":"5.14"' \
    || vm_fail "$device was not updated from 5.12 to 5.14"
  log="$VM_OUT/serve-1.log"
  [[ $device == "$second" ]] && log="$VM_OUT/serve-2.log"
  activations=$(grep -c "left its DFU bootloader: new application" "$log" || true)
  [[ $activations -eq 1 ]] || vm_fail "$device activated $activations images (its own log), wanted 1"
done
vm_log "ok: each device updated once to 5.14, through the shared firmware run"
# One rollout for the site, kept in the journal: its canary (one device of the two) and its wave each ended once,
# said by whichever gateway ended it — a rollout per gateway would end a canary on each.
for stage in canary "wave 1"; do
  ended=$(cat "$VM_OUT/gw-1.out" "$VM_OUT/gw-2.out" | grep -c "\"event\":\"rollout-stage\".*\"reason\":\"$stage\"" || true)
  [[ $ended -eq 1 ]] || vm_fail "the rollout's $stage ended $ended times across the gateways (wanted once)"
done
vm_log "ok: one site-wide rollout, its canary and wave each ended once"
grep -q "shared run reconcile-" "$VM_OUT/gw-1.log" || vm_fail "gw-1 did not say which shared run it joined"
vm_stop "$serve1"
vm_stop "$serve2"
echo "PASS reconcile-gateways ($VM_MODE)"
