#!/usr/bin/env bash
# Benchmarks the watcher of `cos serve` against real cos processes and
# prints the go test -bench output (figures in the BENCH lines):
#   - an edit visible in another process (git copy of GOROOT/src/net/http,
#     60 edits: p50, p99);
#   - a git checkout touching 500 Go files of a git copy of GOROOT/src until
#     the graph equals a fresh index of the checkout;
#   - cos serve's memory and idle CPU with the watcher on and off (GOROOT/src),
#     and the Go heap the watcher keeps, measured in-process (./indexing);
#   - cos_graph_changes and cos_graph_context round trips over MCP (net/http).
#
# Usage: bash scripts/bench_watch.sh [-bench REGEXP]   (default: all four)
# Environment: COS_BENCH_WATCH_CACHE keeps the git copy of GOROOT/src, its
# indexed state folder and the fresh-index digests between runs (default
# ~/.cache/cos-bench/watch-<go version>; the first run indexes GOROOT/src
# three times: minutes). COS_BENCH_WATCH_SAMPLES sets the number of edits.
# Needs Go, git and Linux (/proc). Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
bench='^BenchmarkWatch_'
if [ "${1:-}" = "-bench" ]; then bench="${2:?-bench needs a regexp}"; fi
case "${1:-}" in -h|--help) sed -n '2,17p' "$0"; exit 0 ;; esac
command -v git >/dev/null || { echo "bench_watch.sh: git is not on PATH" >&2; exit 1; }
echo "== watcher benchmarks on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
export COS_BENCH_WATCH=1 COS_BENCH_WATCH_CACHE="${COS_BENCH_WATCH_CACHE:-$HOME/.cache/cos-bench/watch-$(go env GOVERSION)}"
go test -run '^$' -bench "$bench" -benchtime 1x -timeout 90m ./cli
go test -run '^$' -bench "$bench" -benchtime 1x -timeout 30m ./indexing
