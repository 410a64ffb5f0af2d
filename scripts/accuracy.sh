#!/usr/bin/env bash
# Accuracy of cos's Go calls edges against an independent oracle: the SSA
# call graph of golang.org/x/tools (go/callgraph static + CHA) on net/http,
# encoding/json (default and GOEXPERIMENT=jsonv2), go/types and
# github.com/spf13/cobra@v1.8.1 (fetched with go mod download). Prints one
# Markdown table per repository (precision and recall per category, with
# the wall time of our extraction and of the oracle) and a summary table
# for README.md. The mapping rules are in scripts/accuracy/doc.go.
#
# Usage: bash scripts/accuracy.sh [-v] [--top N] [--json FILE] [--only NAMES] [--export-deps]
#        bash scripts/accuracy.sh [-v] [--env KEY=VALUE]... DIR...
#   -v             list the top missed and false-positive edges per category (file:line)
#   --top N        how many (default 10)
#   --json FILE    also write the raw numbers to FILE
#   --only NAMES   comma-separated targets: net/http, encoding/json (both runs),
#                  "encoding/json (jsonv2)", go/types, cobra
#   --export-deps  oracle: dependencies from export data instead of source (about 3x
#                  faster, the same calls edges; the CHA dispatch row can differ slightly)
#   DIR...         measure these folders instead (--env sets variables for both sides)
# It builds the extractor of the working tree as it is (uncommitted edits of
# extract/ included). Needs Go, and network access for cobra (or a module
# cache that has it). Takes a few minutes.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
command -v go >/dev/null || { echo "accuracy.sh: go is not on PATH (Go 1.26 is needed)" >&2; exit 1; }
bin=$(mktemp -d "${TMPDIR:-/tmp}/cos-accuracy.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/accuracy" ./scripts/accuracy)
"$bin/accuracy" "$@"
