#!/usr/bin/env bash
# Measures what a short cos process pays to open a NATS store (issue 34
# item 8): a nats-server process (built from the module's dependency) with
# a stream of --events one-event requests, each with a request id, then
# `cos log head` and `cos call cos_health` as separate processes, on a state
# folder that has been used once (so a checkpoint, where the binary keeps
# one, exists). Each binary gets its own state folder; runs alternate
# between the binaries. Prints one line per binary and command: median of
# wall seconds and of user+sys CPU seconds over --runs, with the load.
#
# Usage: bash scripts/bench_nats_open.sh --cos NEW_BIN [--old OLD_BIN] [--events 43000] [--runs 5]
# Needs Go and /usr/bin/time. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
new="" old="" events=43000 runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --cos) new="$2"; shift 2 ;;
    --old) old="$2"; shift 2 ;;
    --events) events="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "bench_nats_open.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$new" ] || { echo "bench_nats_open.sh: --cos must name an executable cos binary" >&2; exit 2; }
[ -z "$old" ] || [ -x "$old" ] || { echo "bench_nats_open.sh: --old must name an executable cos binary" >&2; exit 2; }
case "$events$runs" in *[!0-9]*) echo "bench_nats_open.sh: --events and --runs take whole numbers" >&2; exit 2 ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/cos-bench-nats-open.XXXXXX")
srvpid=""
cleanup() { [ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/nats-server" github.com/nats-io/nats-server/v2
go build -o "$work/natsfill" ./scripts/natsfill
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$work/nats-server" -a 127.0.0.1 -p "$port" -js -sd "$work/js" >"$work/server.log" 2>&1 &
srvpid=$!
sleep 1
store="nats://127.0.0.1:$port/BENCH"
"$work/natsfill" -store "$store" -events "$events"

bins=("new:$new")
[ -n "$old" ] && bins+=("old:$old")
for b in "${bins[@]}"; do
  name=${b%%:*} bin=${b#*:}
  mkdir -p "$work/state-$name"
  # First use of the folder: projections, snapshot, checkpoint.
  "$bin" --state-dir "$work/state-$name" --store "$store" call cos_health '{}' >/dev/null
done
measure() { # name bin cmd...
  local name=$1 bin=$2; shift 2
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$bin" --state-dir "$work/state-$name" --store "$store" "$@" >/dev/null 2>&1
  awk -v n="$name" -v c="$*" '{ print n "\t" c "\t" $1 "\t" $2 + $3 }' "$work/t" >>"$work/times"
}
: >"$work/times"
for _ in $(seq "$runs"); do
  for b in "${bins[@]}"; do
    name=${b%%:*} bin=${b#*:}
    measure "$name" "$bin" log head
    measure "$name" "$bin" call cos_health '{}'
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $events events; $runs runs; median wall s, median CPU s (user+sys)"
sort -t$'\t' -k1,1 -k2,2 "$work/times" | awk -F'\t' '
function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((n + 1) / 2)] }
{ k = $1 "\t" $2; if (k != last && last != "") { print last "\t" med(w, n) "\t" med(c, n); n = 0 } last = k; n++; w[n] = $3; c[n] = $4 }
END { if (last != "") print last "\t" med(w, n) "\t" med(c, n) }'
