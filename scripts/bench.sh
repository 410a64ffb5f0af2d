#!/usr/bin/env bash
# Benchmarks cos and prints one Markdown report: the event log beside raw
# bbolt and the disk's fdatasync rate, MCP round trips at 100,000 nodes,
# `cos index` of the Go source tree, the cold first read and MCP reads on
# that indexed tree (a fixed-seed sample of its functions), the Linux kernel
# (when Debian's linux-source tarball is installed: index fresh, unchanged,
# after a 10-file edit, cold first read, MCP reads), propagation between two
# processes, and the same workload side by side with the reference MCP
# memory server (@modelcontextprotocol/server-memory, installed with npm into
# a cache folder outside the repository and run with node). Every table says
# when it ran, on how many cores, and the load average at its start and end.
#
# Usage: bash scripts/bench.sh [--quick] [--runs N] [--out FILE]
#   --quick    a short smoke run (small sizes, 2 runs): checks that every step works
#   --runs N   runs per figure (default 3); each figure is the median, (min–max) the spread
#   --out FILE also write the report to FILE, and the raw results (JSON lines,
#              re-render with: go run ./scripts/benchmcp table FILE.jsonl) to FILE.jsonl
# Environment: COS_BENCH_DIR caches the npm install (default ~/.cache/cos-bench);
#   COS_JAVA_ROOT, COS_C_ROOT, COS_CPP_ROOT, COS_RUST_ROOT, COS_PHP_ROOT, COS_RUBY_ROOT
#   name real projects to measure each language's extraction on (lines/s, lines/cpu-s);
#   COS_BENCH_ROOTS=1 also indexes GOROOT/src as one root and as ten (BenchmarkRoots_GoSrc);
#   COS_KERNEL_TARBALL names the kernel tarball (default: /usr/src/linux-source-*.tar.xz, from
#   `apt-get install linux-source`); COS_BENCH_KERNEL=0 skips the kernel (about 20 minutes,
#   4 GB of disk under TMPDIR; --quick skips it too).
# Needs Go, a C compiler (cgo grammars), node ≥ 18 and npm. Not part of CI
# (CI runs scripts/bench_kernel.sh and benchmcp on tiny trees: go test ./scripts/benchmcp).
set -euo pipefail
if [ -n "${COS_KERNEL_TARBALL:-}" ] && [ ! -f "$COS_KERNEL_TARBALL" ]; then
  echo "bench.sh: COS_KERNEL_TARBALL=$COS_KERNEL_TARBALL: not a file" >&2
  exit 2
fi
cd "$(dirname "$0")/.."

memory_pkg=@modelcontextprotocol/server-memory
memory_version=2026.8.31

quick=0
runs=3
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; runs=2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift ;;
    --out) out="${2:?--out needs a file}"; shift ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

die() { echo "bench.sh: $*" >&2; exit 1; }
step() { echo "== $* ($(date -u +%H:%M:%S))" >&2; }
command -v go >/dev/null || die "go is not on PATH (Go 1.26 is needed)"
command -v node >/dev/null || die "node is not on PATH: install Node.js ≥ 18 (e.g. apt-get install nodejs npm) to run the reference memory server"
command -v npm >/dev/null || die "npm is not on PATH: install npm (e.g. apt-get install npm) to fetch $memory_pkg"

work=$(mktemp -d "${TMPDIR:-/tmp}/cos-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=1

if [ "$quick" = 1 ]; then
  benchtime=200x; proc_appends=20; nodes=5050; calls=10; entities=200; lookups=20; reads=2; prop_calls=10; read_calls=20
  index_root="$(go env GOROOT)/src/net/http"; index_label="net/http"
else
  benchtime=1s; proc_appends=100; nodes=100000; calls=100; entities=5000; lookups=1000; reads=5; prop_calls=50; read_calls=200
  index_root="$(go env GOROOT)/src"; index_label="GOROOT/src"
fi

step "build cos and benchmcp"
go build -o "$work/cos" ./cmd/cos
go build -o "$work/benchmcp" ./scripts/benchmcp
bm() { "$work/benchmcp" "$@" -cos "$work/cos" -tmp "$work" -runs "$runs"; }
# window: now, as benchmcp -window-start wants it (the start of a go test -bench run).
window() { echo "$(date -u '+%Y-%m-%d %H:%M') UTC (load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'))"; }

cache="${COS_BENCH_DIR:-$HOME/.cache/cos-bench}"
memory_js="$cache/node_modules/$memory_pkg/dist/index.js"
have_version=$(node -p "try { require('$cache/node_modules/$memory_pkg/package.json').version } catch (e) { '' }" 2>/dev/null || true)
if [ "$have_version" != "$memory_version" ]; then
  step "npm install $memory_pkg@$memory_version into $cache"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --silent "$memory_pkg@$memory_version" >&2 \
    || die "npm install $memory_pkg@$memory_version failed (network? see the npm output above)"
fi
[ -f "$memory_js" ] || die "$memory_js is missing after npm install"

load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

step "event log: go test -bench (count $runs, benchtime $benchtime)"
# A failing benchmark is reported in the table, not fatal.
started=$(window)
go test -run '^$' -bench '^Benchmark(Floor_|Append_)' -benchtime "$benchtime" -count "$runs" ./eventlog/boltlog \
  >"$work/eventlog.txt" 2>&1 || echo "bench.sh: some eventlog benchmarks failed (see the table)" >&2
"$work/benchmcp" gobench -table eventlog -window-start "$started" <"$work/eventlog.txt" >"$work/eventlog.jsonl"
if grep -q -- '--- FAIL: BenchmarkAppend_Processes' "$work/eventlog.txt"; then
  # Stand-in: time boltlog's own child processes (4 × 16 appenders) from outside.
  step "event log: BenchmarkAppend_Processes failed; timing its 4 child processes from benchmcp"
  go test -c -o "$work/eventlog.test" ./eventlog/boltlog
  bm procs -testbin "$work/eventlog.test" -calls "$proc_appends" >>"$work/eventlog.jsonl"
fi

step "MCP round trips at $nodes nodes"
bm roundtrip -nodes "$nodes" -calls "$calls" >"$work/roundtrip.jsonl"

step "cos index $index_root"
bm index -root "$index_root" >"$work/index.jsonl"

step "cold first read and MCP reads on $index_root, indexed once more (sample of $read_calls functions and methods, seed 1)"
"$work/cos" --state-dir "$work/reads-state" index --no-progress "$index_root" >&2
bm cold -state "$work/reads-state" -query ListenAndServe -label "$index_label" >"$work/cold.jsonl"
bm reads -state "$work/reads-state" -calls "$read_calls" -seed 1 -label "$index_label" >"$work/reads.jsonl"
rm -rf "$work/reads-state"

# The Linux kernel (Debian's linux-source package): only when its tarball
# is there, and not in --quick.
kernel_jsonl=""
kernel_tarball="${COS_KERNEL_TARBALL:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -1 || true)}"
if [ "$quick" = 1 ]; then
  step "kernel: skipped in --quick (a full index of the Linux kernel takes minutes)"
elif [ "${COS_BENCH_KERNEL:-1}" = 0 ]; then
  step "kernel: skipped (COS_BENCH_KERNEL=0)"
elif [ -z "$kernel_tarball" ] || [ ! -f "$kernel_tarball" ]; then
  step "kernel: skipped, no /usr/src/linux-source-*.tar.xz (apt-get install linux-source, or set COS_KERNEL_TARBALL)"
else
  step "kernel: $kernel_tarball (bash scripts/bench_kernel.sh)"
  bash scripts/bench_kernel.sh --tarball "$kernel_tarball" --work "$work" --cos "$work/cos" --benchmcp "$work/benchmcp" \
    --runs 1 --read-runs "$runs" --calls "$read_calls" >"$work/kernel.jsonl"
  kernel_jsonl="$work/kernel.jsonl"
fi

step "propagation between two cos serve processes"
bm propagation -calls "$prop_calls" -nats off,auto >"$work/propagation.jsonl"

tools_jsonl=""
if grep -qs '^func BenchmarkPropagation' tools/*_test.go; then
  step "tools: go test -bench Propagation (count $runs)"
  started=$(window)
  go test -run '^$' -bench '^BenchmarkPropagation' -benchtime "$benchtime" -count "$runs" ./tools \
    >"$work/tools.txt" 2>&1 || echo "bench.sh: some tools benchmarks failed (see the table)" >&2
  "$work/benchmcp" gobench -table toolsbench -window-start "$started" <"$work/tools.txt" >"$work/tools.jsonl"
  tools_jsonl="$work/tools.jsonl"
fi

# Syntax-level languages on real projects: only for the languages whose
# project folder is named (COS_JAVA_ROOT, COS_C_ROOT, COS_CPP_ROOT,
# COS_RUST_ROOT, COS_PHP_ROOT, COS_RUBY_ROOT; see BenchmarkLang in extract/).
lang_jsonl=""
if [ -n "${COS_JAVA_ROOT:-}${COS_C_ROOT:-}${COS_CPP_ROOT:-}${COS_RUST_ROOT:-}${COS_PHP_ROOT:-}${COS_RUBY_ROOT:-}" ]; then
  step "extract: go test -bench Lang (count $runs)"
  started=$(window)
  go test -run '^$' -bench '^BenchmarkLang$' -benchtime 2x -count "$runs" ./extract \
    >"$work/lang.txt" 2>&1 || echo "bench.sh: some language benchmarks failed (see the table)" >&2
  "$work/benchmcp" gobench -table langbench -window-start "$started" <"$work/lang.txt" >"$work/lang.jsonl"
  lang_jsonl="$work/lang.jsonl"
fi

step "side by side with $memory_pkg@$memory_version"
bm compare -node node -memory-js "$memory_js" -entities "$entities" -lookups "$lookups" -reads "$reads" -writers 4 \
  >"$work/compare.jsonl" 2> >(grep -v '^Knowledge Graph MCP Server running on stdio$' >&2)

load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
mode=full; [ "$quick" = 1 ] && mode="quick (smoke run: small sizes, not for quoting)"
report="$work/report.md"
{
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores (${cpu:-unknown CPU}), $(uname -sr), $(go version | cut -d' ' -f3), node $(node --version), $memory_pkg $memory_version."
  echo "Load average before/after: $load_before / $load_after. Mode: $mode; each figure is the median of $runs runs, (min–max) the spread."
  echo
  "$work/benchmcp" table "$work"/eventlog.jsonl "$work"/roundtrip.jsonl "$work"/index.jsonl "$work"/cold.jsonl "$work"/reads.jsonl $kernel_jsonl "$work"/propagation.jsonl $tools_jsonl $lang_jsonl "$work"/compare.jsonl
  echo "Reproduce: \`bash scripts/bench.sh\`"
} >"$report"
cat "$report"
if [ -n "$out" ]; then
  cp "$report" "$out"
  cat "$work"/eventlog.jsonl "$work"/roundtrip.jsonl "$work"/index.jsonl "$work"/cold.jsonl "$work"/reads.jsonl $kernel_jsonl "$work"/propagation.jsonl $tools_jsonl $lang_jsonl "$work"/compare.jsonl >"$out.jsonl"
fi
# The watcher's benchmarks (real cos serve processes, a git copy of GOROOT/src
# indexed three times on a first run): only with COS_BENCH_WATCH=1.
if [ "${COS_BENCH_WATCH:-0}" = 1 ]; then
  step "watcher: bash scripts/bench_watch.sh"
  bash scripts/bench_watch.sh
fi
# One root beside ten roots holding the same files (GOROOT/src, about 10,000
# files indexed twice): only with COS_BENCH_ROOTS=1.
if [ "${COS_BENCH_ROOTS:-0}" = 1 ]; then
  step "roots: go test -bench Roots_GoSrc"
  COS_ROOTS_BENCH=1 go test -run '^$' -bench '^BenchmarkRoots_GoSrc$' -timeout 60m ./tools
fi
