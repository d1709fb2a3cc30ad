# Guest-side helpers for vm-e2e scenarios (bash; sourced by every scenario: `. "$VM_LIB"`).
# They run inside the QEMU guest, chrooted into the host's read-only root; write only to $VM_OUT (the
# run's shared read-write folder) or /tmp. (docs/protocols/vm-e2e.md)
#
# Environment (set by scripts/vm/guest-run from run.env):
#   VM_OUT         the scenario's folder (host: .build/vm-e2e/runs/<mode>/<scenario>/)
#   VM_MODE        plain | bluetoothd — whether bluetoothd runs while the scenario does
#   BEACON_PROVISION  absolute path of the beacon-provision binary under test
#   VM_REPO        the repository checkout (read-only in the guest)
#
# Every step has a timeout so a hang fails in a minute, not at the CI job limit. The limits are generous
# (a loaded 2-core host slows TCG guests 5–10×); a healthy run takes a fraction of them. Failures print
# "FAIL: …" and exit non-zero; background processes started here are killed by guest-run afterwards.

set -euo pipefail
VM_OUT=${VM_OUT:-/run/vm-e2e}
VM_MODE=${VM_MODE:-plain}
VM_PIDS=${VM_PIDS:-/tmp/vm-e2e.pids}
BP=${BEACON_PROVISION:-beacon-provision}
VM_CONTROLLERS=()

vm_log() {
  local uptime
  read -r uptime _ </proc/uptime
  printf '[%6.2fs] %s\n' "$uptime" "$*"
}

# Waiting costs CPU the guest needs for the work waited on: under TCG every fork+exec (date, sleep, grep)
# takes ~0.2 s of a host core. So the polling helpers below use bash builtins only: $EPOCHREALTIME for the
# clock, `read -t` on a FIFO nobody writes for sleeping, `read -d ''` to look into a file.
vm_now_ms() { VM_NOW_MS=$(( ${EPOCHREALTIME/./} / 1000 )); }
[[ -p /tmp/vm-e2e-sleep.fifo ]] || mkfifo /tmp/vm-e2e-sleep.fifo
exec {VM_SLEEP_FD}<>/tmp/vm-e2e-sleep.fifo
# vm_sleep SECONDS: sleeps without starting a process.
vm_sleep() { read -r -t "$1" -u "$VM_SLEEP_FD" _ || true; }
# vm_file_has NEEDLE FILE: FILE contains NEEDLE (a fixed string), read without starting a process.
vm_file_has() {
  local content=""
  [[ -r $2 ]] || return 1
  IFS= read -r -d '' content <"$2" || true
  [[ $content == *"$1"* ]]
}
vm_fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

# vm_run SECONDS CMD...: runs CMD, killing it (and failing the scenario) after SECONDS.
vm_run() {
  local seconds=$1; shift
  local rc=0
  timeout -k 2 "$seconds" "$@" || rc=$?
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then vm_fail "timed out after ${seconds}s: $*"; fi
  return "$rc"
}

# vm_wait_for SECONDS DESCRIPTION CMD...: polls CMD (every 0.2 s) until it succeeds. CMD is best a shell
# function or builtin (vm_file_has, vm_hci_at_least, test): an external command costs CPU every poll.
vm_wait_for() {
  local seconds=$1 what=$2; shift 2
  vm_now_ms
  local deadline=$(( VM_NOW_MS + seconds * 1000 ))
  until "$@" >/dev/null 2>&1; do
    vm_now_ms
    (( VM_NOW_MS < deadline )) || vm_fail "timed out after ${seconds}s waiting for $what"
    vm_sleep 0.2
  done
}

# vm_bg NAME CMD...: starts CMD in the background, output in $VM_OUT/NAME.log; its pid is remembered
# (for guest-run's cleanup) and left in VM_BG_PID.
vm_bg() {
  local name=$1; shift
  "$@" >"$VM_OUT/$name.log" 2>&1 &
  VM_BG_PID=$!
  echo "$VM_BG_PID $name" >>"$VM_PIDS"
}

# vm_bg_split NAME CMD...: like vm_bg, but standard output goes to $VM_OUT/NAME.out and standard error to
# $VM_OUT/NAME.log (a --json command whose progress lines go to standard error). Wait for it with
# `wait "$VM_BG_PID"`; bound it with `timeout` in CMD.
vm_bg_split() {
  local name=$1; shift
  "$@" >"$VM_OUT/$name.out" 2>"$VM_OUT/$name.log" &
  VM_BG_PID=$!
  echo "$VM_BG_PID $name" >>"$VM_PIDS"
}

# vm_run_split NAME CMD...: runs CMD as vm_bg_split does and waits for it to end; its exit status is left in
# VM_RC (bound it with `timeout` in CMD).
vm_run_split() {
  vm_bg_split "$@"
  VM_RC=0
  wait "$VM_BG_PID" || VM_RC=$?
}

# vm_term PID NAME: sends SIGTERM to PID (a service: reconcile), waits up to 60 s for it to end, and leaves its
# exit status in VM_RC.
vm_term() {
  local pid=$1 name=$2
  kill -TERM "$pid"
  vm_wait_for 60 "$name to stop on SIGTERM" eval "! kill -0 $pid"
  VM_RC=0
  wait "$pid" || VM_RC=$?
}

# vm_serve_http ROOT PROBE: Debian's nginx serving folder ROOT on http://127.0.0.1:8080/ over the guest's
# loopback (ETags on), its prefix (pid, logs, temp paths) in $VM_OUT/nginx, its access log
# $VM_OUT/nginx/access.log; waits until the file PROBE (a path under ROOT) is served. Sets VM_HTTP_PID.
vm_serve_http() {
  local root=$1 probe=$2 web="$VM_OUT/nginx"
  vm_run 10 ip link set lo up
  mkdir -p "$web"
  cat >"$web/nginx.conf" <<CONF
daemon off; user root; pid $web/nginx.pid; error_log $web/error.log; worker_processes 1;
events { worker_connections 16; }
http {
  access_log $web/access.log; client_body_temp_path $web; proxy_temp_path $web; fastcgi_temp_path $web;
  uwsgi_temp_path $web; scgi_temp_path $web;
  types { application/json json; application/zip zip; }
  server { listen 127.0.0.1:8080; root $root; etag on; }
}
CONF
  vm_bg nginx nginx -p "$web" -c "$web/nginx.conf" -e "$web/error.log"
  VM_HTTP_PID=$VM_BG_PID
  vm_wait_for 30 "nginx to serve $probe" curl -sf -o /dev/null "http://127.0.0.1:8080/$probe"
}

# vm_stop PID: SIGTERM, then SIGKILL after 2 s.
vm_stop() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 20; i++)); do kill -0 "$pid" 2>/dev/null || return 0; vm_sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

# Pitfall 1: btvirt needs AF_ALG (ecb, cmac, algif_*) loaded BEFORE it registers its controllers.
vm_load_modules() {
  vm_run 60 modprobe -a bluetooth hci_vhci ecb cmac algif_skcipher algif_hash
  vm_log "modules loaded (bluetooth hci_vhci ecb cmac algif_skcipher algif_hash)"
}

# Starts `btmon -w $VM_OUT/hci.btsnoop` and waits until it writes (pitfall 5: ~1 s under TCG). Its decoded
# text goes to btmon.log, which is the complete record: in this guest the binary capture has been seen to
# stop after the first few seconds (also when written to tmpfs) while the text log went on.
vm_start_btmon() {
  vm_bg btmon btmon -w "$VM_OUT/hci.btsnoop"
  vm_wait_for 30 "btmon to start" test -s "$VM_OUT/hci.btsnoop"
  vm_log "btmon capturing to hci.btsnoop"
}

vm_hci_names() { ls /sys/class/bluetooth 2>/dev/null | grep -E '^hci[0-9]+$' | sort -V; }
# vm_hci_at_least N: true once the kernel has N controllers (a command for vm_wait_for, which re-runs it;
# `test "$(count)" -ge N` as its command would count once, when vm_wait_for is called).
vm_hci_at_least() {
  local n=0 path
  for path in /sys/class/bluetooth/hci*; do [[ ${path##*/} =~ ^hci[0-9]+$ ]] && n=$((n + 1)); done
  (( n >= $1 ))
}
# vm_lines_at_least N REGEX FILE: true once FILE has N lines matching REGEX (for vm_wait_for).
vm_lines_at_least() {
  local n=0 line
  [[ -r $3 ]] || return 1
  while IFS= read -r line; do [[ $line =~ $2 ]] && n=$((n + 1)); done <"$3"
  (( n >= $1 ))
}

# vm_start_btvirt N: N virtual LE-only controllers sharing one air (hci0 … hci<N-1>). The btvirt is VM_BTVIRT:
# BlueZ 5.66's, built by scripts/vm/build-btvirt with the fix that lets one central hold several links
# (docs/protocols/vm-e2e.md pitfall 8); Debian's own when that is unset (a scenario run by hand).
vm_start_btvirt() {
  local n=$1
  vm_bg btvirt "${VM_BTVIRT:-btvirt}" -L -l"$n"
  vm_wait_for 60 "$n btvirt controllers" vm_hci_at_least "$n"
  mapfile -t VM_CONTROLLERS < <(vm_hci_names)
  vm_log "btvirt: ${VM_CONTROLLERS[*]}"
}

vm_is_up() { hciconfig "$1" 2>/dev/null | grep -q 'UP RUNNING'; }

# vm_controllers_up [hciN…]: `hciconfig up` each (all by default), retrying until UP RUNNING (pitfall 2).
vm_controllers_up() {
  local names=("$@") hci
  [[ ${#names[@]} -gt 0 ]] || names=("${VM_CONTROLLERS[@]}")
  for hci in "${names[@]}"; do
    vm_now_ms
    local deadline=$(( VM_NOW_MS + 60000 ))
    until vm_is_up "$hci"; do
      vm_now_ms
      (( VM_NOW_MS < deadline )) || vm_fail "$hci did not come up: $(hciconfig "$hci" 2>&1 | tr '\n' ' ')"
      timeout 5 hciconfig "$hci" up >/dev/null 2>&1 || vm_sleep 0.2
    done
  done
  vm_log "up: ${names[*]}"
}

# Starts the system D-Bus and bluetoothd (state in a tmpfs: the root is read-only) and waits until
# bluetoothd owns org.bluez and every controller is UP RUNNING again.
vm_start_bluetoothd() {
  mkdir -p /run/dbus
  mountpoint -q /var/lib/bluetooth || mount -t tmpfs bluetooth-state /var/lib/bluetooth
  local dbus_pid
  dbus_pid=$(vm_run 60 dbus-daemon --system --fork --nopidfile --print-pid) || vm_fail "dbus-daemon did not start"
  echo "$dbus_pid dbus-daemon" >>"$VM_PIDS" # stopped with the scenario's other helpers
  vm_wait_for 30 "the system bus" test -S /run/dbus/system_bus_socket
  local bluetoothd=/usr/sbin/bluetoothd
  [[ -x $bluetoothd ]] || bluetoothd=/usr/libexec/bluetooth/bluetoothd
  vm_bg bluetoothd "$bluetoothd" -n -d
  vm_wait_for 60 "bluetoothd on D-Bus" dbus-send --system --print-reply --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.GetNameOwner string:org.bluez
  vm_controllers_up
  vm_log "bluetoothd running (pid $VM_BG_PID)"
}

# vm_setup N: the usual start — modules, btmon, N controllers up, and bluetoothd when VM_MODE says so.
# bluetoothd claims the ATT channel (L2CAP CID 4) of every controller it manages. Measured on this
# kernel (6.1): when several sockets listen on CID 4 of one controller, incoming ATT data goes to the one
# that started listening LAST — so start served devices / ATT listeners AFTER vm_setup (after
# bluetoothd), and they, not bluetoothd, answer the central.
vm_setup() {
  vm_load_modules
  vm_start_btmon
  vm_start_btvirt "$1"
  vm_controllers_up
  if [[ $VM_MODE == bluetoothd ]]; then vm_start_bluetoothd; fi
}

# vm_no_links hciN: true when the controller has no connection (hcitool's HCIGETCONNLIST ioctl).
vm_no_links() { ! hcitool -i "$1" con | grep -q handle; }

# vm_most_links hciN: the most links hciN held at once during the scenario so far, counted from btmon's text
# log (each successful LE Connection Complete or LE Enhanced Connection Complete of hciN opens its handle,
# each Disconnect Complete closes it). A scenario proves a campaign's links were really in parallel with it.
vm_most_links() {
  awk -v hci="[$1]" '
    /^[<>@] / { event = ""; mine = index($0, hci) > 0 }
    mine && /^> HCI Event: LE Meta Event/ { event = "meta" }
    mine && /^> HCI Event: Disconnect Complete/ { event = "disconnect" }
    event == "meta" && /LE (Enhanced )?Connection Complete/ { event = "connect" }
    /Status:/ && event != "" && $0 !~ /Success/ { event = "" }
    /^ +Handle: [0-9]+/ && event == "connect" { if (!($2 in open)) { open[$2] = 1; now++ }; if (now > most) most = now; event = "" }
    /^ +Handle: [0-9]+/ && event == "disconnect" { if ($2 in open) { delete open[$2]; now-- }; event = "" }
    END { print most + 0 }
  ' "$VM_OUT/btmon.log"
}

# vm_expect_links_at_once hciN N WHAT: fails unless btmon's record shows hciN holding at least N links at once
# (vm_most_links); WHAT says what should have run them together, for the failure.
vm_expect_links_at_once() {
  local links
  links=$(vm_most_links "$1")
  (( links >= $2 )) || vm_fail "$1 held at most $links link(s) at once: $3 did not run its devices together"
  vm_log "ok: $1 held $links links at once"
}

# vm_address hciN: the controller's BD_ADDR (as `hciconfig` prints it).
vm_address() { hciconfig "$1" | awk '/BD Address/ { print $3 }'; }

# expect_output_contains SECONDS NEEDLE CMD...: runs CMD (timeout SECONDS) and fails unless its output
# (stdout + stderr) contains NEEDLE. The output is printed either way and kept in VM_LAST_OUTPUT.
expect_output_contains() {
  local seconds=$1 needle=$2; shift 2
  local rc=0
  VM_LAST_OUTPUT=$(timeout -k 2 "$seconds" "$@" 2>&1) || rc=$?
  printf '%s\n' "$VM_LAST_OUTPUT" | sed 's/^/    | /'
  [[ $rc -ne 124 && $rc -ne 137 ]] || vm_fail "timed out after ${seconds}s: $*"
  [[ $VM_LAST_OUTPUT == *"$needle"* ]] || vm_fail "output of '$*' (exit $rc) lacks '$needle'"
  vm_log "ok: '$*' printed '$needle'"
}

# expect_success SECONDS CMD...: runs CMD (timeout SECONDS), printing its output; fails on non-zero exit.
expect_success() { expect_exit 0 "$@"; }

# expect_exit CODE SECONDS CMD...: as expect_success, but the exit status must be CODE (`plan
# --detailed-exitcode` exits 2 when it plans changes).
expect_exit() {
  local code=$1 seconds=$2; shift 2
  local rc=0 not="" how=""
  (( code == 0 )) || { not=", not $code"; how=" (exit $code)"; }
  VM_LAST_OUTPUT=$(timeout -k 2 "$seconds" "$@" 2>&1) || rc=$?
  printf '%s\n' "$VM_LAST_OUTPUT" | sed 's/^/    | /'
  [[ $rc -ne 124 && $rc -ne 137 ]] || vm_fail "timed out after ${seconds}s: $*"
  [[ $rc -eq $code ]] || vm_fail "'$*' exited $rc$not"
  vm_log "ok$how: $*"
}

# expect_last_has NEEDLE WHAT: the last expect_* command's output contains NEEDLE (a fixed string); WHAT says
# what that shows, for the log and the failure.
expect_last_has() {
  [[ $VM_LAST_OUTPUT == *"$1"* ]] || vm_fail "$2: the output lacks '$1'"
  vm_log "ok: $2"
}

# Long-running commands (a scan, a discovery) whose output is watched while they run:
#   vm_stream_start NAME CMD...   starts CMD line-buffered (`stdbuf -oL`, stdin a FIFO that never ends, so
#                                 interactive tools such as btmgmt keep running), output in $VM_OUT/NAME.log
#   vm_stream_wait SECONDS NEEDLE waits until that output contains NEEDLE (fails after SECONDS)
#   vm_stream_stop                stops it, prints its output and leaves it in VM_LAST_OUTPUT
# One stream at a time. btvirt note: its controllers report an advertiser ONCE — when the scanner enables
# scanning (for advertisers already on) or when advertising is enabled (to scanners already on); there
# are no periodic reports. A kernel mgmt discovery can drop the first of these (it arrives while the
# discovery is still "starting"), so start advertising after the scanner says it is scanning.
vm_stream_start() {
  local name=$1; shift
  [[ -p /tmp/vm-e2e.stdin ]] || mkfifo /tmp/vm-e2e.stdin
  VM_STREAM_LOG="$VM_OUT/$name.log"
  VM_STREAM_CMD="$*"
  stdbuf -oL -eL "$@" <>/tmp/vm-e2e.stdin >"$VM_STREAM_LOG" 2>&1 &
  VM_STREAM_PID=$!
  echo "$VM_STREAM_PID $name" >>"$VM_PIDS"
}

vm_stream_wait() {
  local seconds=$1 needle=$2
  vm_now_ms
  local deadline=$(( VM_NOW_MS + seconds * 1000 ))
  until vm_file_has "$needle" "$VM_STREAM_LOG"; do
    if ! kill -0 "$VM_STREAM_PID" 2>/dev/null; then
      vm_file_has "$needle" "$VM_STREAM_LOG" && break
      vm_stream_stop
      vm_fail "'$VM_STREAM_CMD' exited without printing '$needle'"
    fi
    vm_now_ms
    if (( VM_NOW_MS >= deadline )); then
      vm_stream_stop
      vm_fail "'$VM_STREAM_CMD' did not print '$needle' within ${seconds}s"
    fi
    vm_sleep 0.2
  done
  vm_log "ok: '$VM_STREAM_CMD' printed '$needle'"
}

vm_stream_stop() {
  vm_stop "$VM_STREAM_PID"
  wait "$VM_STREAM_PID" 2>/dev/null || true
  VM_LAST_OUTPUT=$(cat "$VM_STREAM_LOG")
  printf '%s\n' "$VM_LAST_OUTPUT" | sed 's/^/    | /'
}

# expect_stream_contains SECONDS NEEDLE CMD...: runs a long-running CMD until its output contains NEEDLE,
# then stops it (see vm_stream_start); fails when SECONDS pass first.
VM_STREAMS=0
expect_stream_contains() {
  local seconds=$1 needle=$2; shift 2
  VM_STREAMS=$((VM_STREAMS + 1))
  vm_stream_start "stream-$VM_STREAMS" "$@"
  vm_stream_wait "$seconds" "$needle"
  vm_stream_stop
}

# expect_json JSON < CHECKS: every line of CHECKS is `DESCRIPTION :: JQ-FILTER`; fails unless each filter
# is true on JSON. One jq run for all lines (each jq start costs seconds under TCG).
expect_json() {
  local json=$1 line descriptions=() filters=() program results i
  while IFS= read -r line; do
    [[ -n ${line// } ]] || continue
    descriptions+=("${line%% :: *}")
    filters+=("${line#* :: }")
  done
  program=$(printf '([%s] | length > 0 and all(. == true)), ' "${filters[@]}")
  results=$(jq -c "[${program%, }]" <<<"$json" 2>&1) || vm_fail "jq could not evaluate the checks: $results"
  mapfile -t results < <(jq -r '.[]' <<<"$results")
  for i in "${!filters[@]}"; do
    [[ ${results[$i]:-false} == true ]] || vm_fail "${descriptions[$i]} (jq: ${filters[$i]})"
    vm_log "ok: ${descriptions[$i]}"
  done
}

# vm_expect_updated_once OUT ADDRESS SERVE_LOG: the `dfu update --json` output in OUT updated ADDRESS alone from
# 5.12 to the example catalogue's 5.14, and the served device's own log SERVE_LOG shows one image activated.
vm_expect_updated_once() {
  local out=$1 address=$2 served=$3 activations
  expect_json "$(cat "$out")" <<CHECKS
updated: the device went from 5.12 to the catalogue's 5.14 :: .devices | length == 1 and .[0].address == "$address" and .[0].result == "updated" and .[0].from == "5.12" and .[0].to == "5.14"
CHECKS
  activations=$(grep -c "left its DFU bootloader: new application" "$served" || true)
  [[ $activations -eq 1 ]] || vm_fail "the device activated $activations images (its own log), wanted 1"
}

# vm_postgres DATABASE: Debian's PostgreSQL server started in the guest as its own user (it refuses root), data
# and socket in a fresh folder of the guest's tmpfs (each scenario its own), with DATABASE created; VM_JOURNAL is
# its `--journal` URL (a Unix socket).
vm_postgres() {
  local pgbin pg
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  pg=$(mktemp -d /tmp/pg.XXXXXX)
  chown postgres: "$pg"
  local as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups)
  vm_run 240 "${as_postgres[@]}" "$pgbin/initdb" -D "$pg/data" -U beacon --auth=trust --no-sync -E UTF8 --locale=C \
    >"$VM_OUT/initdb.log" 2>&1 || vm_fail "initdb failed: $(tail -5 "$VM_OUT/initdb.log")"
  vm_bg postgres "${as_postgres[@]}" "$pgbin/postgres" -D "$pg/data" -k "$pg" -c listen_addresses= -c fsync=off \
    -c shared_buffers=16MB -c max_connections=30 -c dynamic_shared_memory_type=sysv
  vm_wait_for 120 "PostgreSQL to listen on $pg" test -S "$pg/.s.PGSQL.5432"
  vm_run 60 "$pgbin/psql" -h "$pg" -U beacon -d postgres -q -c "CREATE DATABASE $1" \
    || vm_fail "cannot create the database $1"
  VM_JOURNAL="postgresql:///$1?host=$pg&user=beacon"
  vm_log "PostgreSQL ready: $VM_JOURNAL"
}
