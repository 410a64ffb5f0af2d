#!/usr/bin/env bash
# Benchmarks the NATS JetStream event log on in-process nats-server nodes on
# loopback (every write fsynced before it is acknowledged) beside the bbolt
# log, and prints Markdown tables:
#   - appends from 1, 8 and 64 concurrent appenders on one handle: bbolt, R1
#     (one node), R3 (three nodes): events/s, p50 and p99 of one Append;
#   - many writing machines on R3: 1 handle × 64 appenders, 4 × 16 and 8 × 8
#     (each handle its own connection, on the three nodes in turn): events/s,
#     p50 and p99, and rounds lost to another handle per 1,000 events;
#   - commit on machine A → received by machine B (another connection, on
#     another node): p50 and p99, from A's acknowledged commit and from A's call;
#   - catch-up of 100,000 events into a fresh machine (R3): open + read all,
#     and a follow from seq 1.
#
# Usage: bash scripts/bench_nats.sh [--quick] [--lazy-fsync] [--raw FILE]
#   --quick       short runs (a smoke test that every step works)
#   --lazy-fsync  nodes fsync on nats-server's default interval, not before each acknowledgement
#   --raw FILE    also keep the raw `go test -bench` output in FILE
# Needs Go. Takes about three minutes (plus the build); not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac

appendtime=3s
handlestime=10000x
applytime=2000x
quick=0
raw=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; appendtime=300x; handlestime=1000x; applytime=200x; shift ;;
    --lazy-fsync) export COS_BENCH_NATS_FSYNC=lazy; shift ;;
    --raw) raw="$2"; shift 2 ;;
    *) echo "bench_nats.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

out=$(mktemp "${TMPDIR:-/tmp}/cos-bench-nats.XXXXXX")
trap 'rm -f "$out"' EXIT
export COS_BENCH_NATS=1
pkg=./eventlog/natslog/
go test -c -o "$out.test" "$pkg"
trap 'rm -f "$out" "$out.test"' EXIT
run() { (cd eventlog/natslog && "$out.test" -test.run '^$' -test.benchmem=false "$@") | tee -a "$out" >&2; }
run -test.bench 'Cluster_Append$' -test.benchtime "$appendtime"
run -test.bench 'Cluster_AppendHandles$' -test.benchtime "$handlestime"
run -test.bench 'Cluster_CommitToApply$' -test.benchtime "$applytime"
if [ "$quick" = 0 ]; then
  run -test.bench 'Cluster_CatchUp$' -test.benchtime 1x
fi
[ -n "$raw" ] && cp "$out" "$raw"

# metric VALUE UNIT pairs follow the name and the iteration count.
awk '
function metric(unit,   i) { for (i = 3; i < NF; i += 2) if ($(i+1) == unit) return $i; return "–" }
/^BenchmarkCluster_Append\// {
  split($1, p, "/"); sub("backend=", "", p[2]); n = p[3]; sub("appenders=", "", n); sub(/-[0-9]+$/, "", n)
  row[p[2] " " n] = sprintf("%s | %s | %s", metric("events/s"), metric("p50_ms"), metric("p99_ms"))
}
/^BenchmarkCluster_AppendHandles\// {
  split($1, p, "/"); h = p[2]; sub("handles=", "", h); n = p[3]; sub("appenders=", "", n); sub(/-[0-9]+$/, "", n)
  handles[++nh] = sprintf("| %s × %s | %s | %s | %s | %s |", h, n, metric("events/s"), metric("p50_ms"), metric("p99_ms"), metric("lost_rounds/1k_events"))
}
/^BenchmarkCluster_CommitToApply\// {
  split($1, p, "/"); r = p[2]; sub(/-[0-9]+$/, "", r)
  apply[r] = sprintf("| %s | %s | %s | %s | %s |", r, metric("commit_to_apply_p50_ms"), metric("commit_to_apply_p99_ms"), metric("call_to_apply_p50_ms"), metric("call_to_apply_p99_ms"))
}
/^BenchmarkCluster_CatchUp\/open_read/ { openread = metric("open_read_s") }
/^BenchmarkCluster_CatchUp\/follow/ { follow = metric("follow_s") }
/^BenchmarkCluster_CatchUp\/state/ { statecu = metric("state_s") }
END {
  print "### Appends (one event per request, with a request id; " (ENVIRON["COS_BENCH_NATS_FSYNC"] == "lazy" ? "NATS nodes with lazy fsync" : "fsync before every acknowledgement") ")"
  print ""
  print "| appenders | bbolt events/s | p50 ms | p99 ms | R1 events/s | p50 ms | p99 ms | R3 events/s | p50 ms | p99 ms |"
  print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  split("1 8 64", ns, " ")
  for (k = 1; k <= 3; k++) {
    n = ns[k]; line = "| " n
    split("bbolt R1 R3", bs, " ")
    for (j = 1; j <= 3; j++) line = line " | " ((bs[j] " " n) in row ? row[bs[j] " " n] : "– | – | –")
    print line " |"
  }
  if (nh > 0) {
    print ""
    print "### Many writing machines (R3, one event per request)"
    print ""
    print "| handles × appenders | events/s | p50 ms | p99 ms | lost rounds per 1,000 events |"
    print "|---|---:|---:|---:|---:|"
    for (k = 1; k <= nh; k++) print handles[k]
  }
  print ""
  print "### Commit on machine A → received on machine B"
  print ""
  print "| replicas | from commit p50 ms | p99 ms | from call p50 ms | p99 ms |"
  print "|---|---:|---:|---:|---:|"
  if ("R1" in apply) print apply["R1"]
  if ("R3" in apply) print apply["R3"]
  if (openread != "" || follow != "") {
    print ""
    print "### Catch-up of 100,000 events into a fresh machine (R3)"
    print ""
    print "| handle: open + read all, s | handle: follow from seq 1, s | fresh state folder: open + caught up, s |"
    print "|---:|---:|---:|"
    print "| " openread " | " follow " | " statecu " |"
  }
}' "$out"
