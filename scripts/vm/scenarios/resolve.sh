# `beacon-provision resolve --scan` on hci0 over a real controller: two blukii modules served by
# `sim serve` (scripts/vm/blukii-fleet.json) as non-connectable iBeacons whose `blukii <number> <hex>` name is
# in the scan response — so advertised as ADV_SCAN_IND, the name reaching only an active scanner — B10001
# on hci1 (registered) and B10004 on hci2 (not registered). The Info Manager is the tests' loopback server
# (Tests/TestServers/InfoManager, Python) on the guest's loopback: the CLI's libcurl over the guest kernel's
# TCP stack. Discovery listens as the blukii SDK does (a 5 s window of --scan 6) and resolves both IDs in one
# batch: B10001 RESOLVED with its info point, B10004 NODATA; the server's log shows one getBlukiisInfo
# request carrying both IDs and the API key. A second run within the cache timeout answers B10001 CACHED
# without the server being asked for it.
# vm-e2e-modes: plain
# (Plain mode only, for the tier's time: its scans and links coexist with bluetoothd as scan.sh and gatt.sh
# show in that mode.)
# vm-e2e-requires: sim serve
# vm-e2e-requires: resolve
. "$VM_LIB"

vm_setup 3
vm_run 10 ip link set lo up
info="$VM_OUT/info-manager"
mkdir -p "$info"
printf 'vm-key\n' >"$info/key"
# The server exits when its standard input closes: a fifo opened read-write never does; it is stopped at the end.
# The fifo lives in the guest's /tmp (the shared output folder is 9p, which has none), and the redirection is
# on the background command itself (vm_bg's would be replaced by /dev/null, as for any `&` without job control).
[[ -p /tmp/info-manager.stdin ]] || mkfifo /tmp/info-manager.stdin
python3 "$VM_REPO/Tests/TestServers/InfoManager/info_manager_server.py" --api-key vm-key \
  <>/tmp/info-manager.stdin >"$VM_OUT/info-manager.log" 2>&1 &
server=$!
echo "$server info-manager" >>"$VM_PIDS"
vm_wait_for 20 "the loopback Info Manager to print its port" vm_lines_at_least 1 '^[0-9]' "$VM_OUT/info-manager.log"
url="http://127.0.0.1:$(grep -m1 -E '^[0-9]+' "$VM_OUT/info-manager.log")"
vm_log "ok: the loopback Info Manager listens on $url"

vm_bg sim-serve "$BP" sim serve --fleet "$VM_REPO/scripts/vm/blukii-fleet.json" --adapter hci1 --adapter hci2
vm_wait_for 40 "sim serve to advertise 2 blukii modules" vm_lines_at_least 2 '^serving .*scannable' "$VM_OUT/sim-serve.log"
sed 's/^/    | /' "$VM_OUT/sim-serve.log"

export XDG_CACHE_HOME="$VM_OUT/cache"
resolve=("$BP" resolve --scan 6 --adapter hci0 --info-manager "$url" --info-manager-key-file "$info/key" --language en-gb,de-de --json)
expect_success 60 "${resolve[@]}"
one='.[] | select(.id == "B10001")' four='.[] | select(.id == "B10004")'
expect_json "$VM_LAST_OUTPUT" <<CHECKS
two blukii modules heard, by the names in their scan responses :: [.[].id] | sort == ["B10001", "B10004"]
B10001 resolved to its info point :: $one | .state == "RESOLVED" and .infoPoint.name == "Museum entrance" and .source == "blukii"
B10001 heard by its name :: $one | .deviceName == "blukii B10001 E4E112B10001"
B10004 is not registered: NODATA :: $four | .state == "NODATA" and (.infoPoint == null)
CHECKS
log=$(curl -sf "$url/_log") || vm_fail "the Info Manager's request log is unreachable"
expect_json "$log" <<CHECKS
one batch request, with both IDs :: [.[] | select(.path | contains("getBlukiisInfo"))] | length == 1 and (.[0].body.blukiiIds | sort) == ["B10001", "B10004"]
CHECKS

expect_success 60 "${resolve[@]}"
expect_json "$VM_LAST_OUTPUT" <<CHECKS
the second run answers B10001 from the cache :: $one | .state == "CACHED"
CHECKS
[[ $VM_LAST_OUTPUT != *vm-key* ]] || vm_fail "resolve printed the API key"
vm_stop "$server"
echo "PASS resolve ($VM_MODE)"
