#!/usr/bin/env bash
# Agreement of cos's dead-code audit (cos_graph_audit {check: "dead",
# include_exported: false}: tests, main and init as roots) with
# golang.org/x/tools/cmd/deadcode -test, on spf13/cobra at adbc8813901b and
# on net/http of the running Go. Prints agreement, precision and recall per
# project and every disagreement sorted into a reason (scripts/deadaccuracy/doc.go).
#
# Usage: bash scripts/deadaccuracy.sh [-v] [-json FILE] [-project cobra,nethttp]
#        bash scripts/deadaccuracy.sh [-v] -dir DIR [-filter REGEXP]
# Needs Go, git and network access for the first fetch of cobra (kept in
# $COS_ORACLE_CACHE/src/cobra). deadcode takes about 40 s on cobra and 2 min
# on net/http.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
bin=$(mktemp -d "${TMPDIR:-/tmp}/cos-deadaccuracy.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/deadaccuracy" ./scripts/deadaccuracy)
"$bin/deadaccuracy" "$@"
