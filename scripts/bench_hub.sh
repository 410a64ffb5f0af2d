#!/usr/bin/env bash
# Benchmarks the Hub page in headless Chromium against real cos processes
# and prints a table of the figures beside their targets:
#   - the first board page of 5,000 tasks rendered (target ≤ 1,000 ms), and
#     GET /api/board's time seen from Go (target ≤ 50 ms);
#   - a write by another cos process shown on 20 open boards: p50 and p99
#     from the commit until the last page shows it (target p99 ≤ 1,000 ms);
#   - a 300-node neighbourhood of GOROOT/src/net/http drawn (≤ 2,000 ms).
#
# Usage: bash scripts/bench_hub.sh [-bench REGEXP] [-benchtime N]
#   (default: all three; 5x, the live benchmark 50 writes)
# Environment: COS_CHROMIUM (default /usr/bin/chromium); COS_BENCH_HUB_CACHE
# keeps the indexed copy of net/http between runs (default: a folder of the
# OS temp folder named after the Go version); COS_SCREENSHOTS keeps the
# screenshots. Needs Go and Chromium. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
bench='^BenchmarkBrowser_'
benchtime=''
while [ $# -gt 0 ]; do
  case "$1" in
    -bench) bench="${2:?-bench needs a regexp}"; shift 2 ;;
    -benchtime) benchtime="${2:?-benchtime needs a count such as 5x}"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "bench_hub.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
export COS_BENCH_HUB=1 COS_CHROMIUM="${COS_CHROMIUM:-/usr/bin/chromium}"
[ -x "$COS_CHROMIUM" ] || { echo "bench_hub.sh: no Chromium at $COS_CHROMIUM (apt-get install chromium, or set COS_CHROMIUM)" >&2; exit 1; }
echo "== hub browser benchmarks on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $("$COS_CHROMIUM" --version 2>/dev/null)" >&2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run() { # regexp benchtime
  go test -run '^$' -bench "$1" -benchtime "$2" -timeout 30m ./hub | tee -a "$out"
}
if [ -n "$benchtime" ] || [ "$bench" != '^BenchmarkBrowser_' ]; then
  run "$bench" "${benchtime:-5x}"
else
  run '^BenchmarkBrowser_(Board5000FirstPage|Graph300)$' 5x
  # The live benchmark's p99 needs more samples: 50 writes.
  run '^BenchmarkBrowser_LiveUpdate20Pages$' 50x
fi
echo
awk '
  /^BenchmarkBrowser_/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i += 2) v[name, $(i+1)] = $i
    names[name] = 1
  }
  END {
    printf "%-40s %-14s %10s %10s  %s\n", "benchmark", "figure", "value", "target", "ok"
    row("BenchmarkBrowser_Board5000FirstPage", "ms/first-page", 1000)
    row("BenchmarkBrowser_Board5000FirstPage", "ms/api-board", 50)
    row("BenchmarkBrowser_LiveUpdate20Pages", "ms/p50", "")
    row("BenchmarkBrowser_LiveUpdate20Pages", "ms/p99", 1000)
    row("BenchmarkBrowser_LiveUpdate20Pages", "ms/p99-page", "")
    row("BenchmarkBrowser_Graph300", "ms/drawn", 2000)
    row("BenchmarkBrowser_Graph300", "nodes", "")
  }
  function row(n, f, target,   val, ok) {
    if (!((n, f) in v)) return
    val = v[n, f]
    ok = (target == "") ? "" : ((val + 0 <= target + 0) ? "yes" : "NO")
    printf "%-40s %-14s %10s %10s  %s\n", n, f, val, target, ok
  }
' "$out"
