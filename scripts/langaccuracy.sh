#!/usr/bin/env bash
# Accuracy of cos's calls edges for Python, TypeScript and JavaScript
# against Sourcegraph's SCIP indexers (scip-python 0.6.6, scip-typescript
# 0.4.0) on the Python standard library packages json, http, email and
# asyncio, rxjs@7.8.1 (src/), zod@3.25.76 (src/v4) and express@4.21.2 (lib/).
# Prints one Markdown section per target (precision and recall per call-site
# form and per callee kind, references recall, the wall time of our
# extraction and of the indexer) and a summary table for README.md. The
# mapping rules are in scripts/langaccuracy/doc.go.
#
# Usage: bash scripts/langaccuracy.sh [-v] [--top N] [--json FILE] [--only NAMES] [--scip-tools DIR] [--keep]
#   -v               list the top missed and false-positive edges per category
#                    (file:line, caller → callee, the source line)
#   --top N          how many (default 10)
#   --json FILE      also write the raw numbers to FILE
#   --only NAMES     comma-separated targets: json,http,email,asyncio,rxjs,zod,express
#   --scip-tools DIR take scip-python and scip-typescript from DIR (DIR, DIR/bin or
#                    DIR/node_modules/.bin) instead of PATH or the cache
#   --keep           keep each target's temporary folder (files and index.scip)
# Needs Go, Node.js with npm (the indexers and the npm packages are fetched
# once into ${XDG_CACHE_HOME:-$HOME/.cache}/cos-langaccuracy) and python3.
# It builds the extractor of the working tree as it is (uncommitted edits of
# extract/ included). Takes about a minute.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
command -v go >/dev/null || { echo "langaccuracy.sh: go is not on PATH (Go 1.26 is needed)" >&2; exit 1; }
bin=$(mktemp -d "${TMPDIR:-/tmp}/cos-langaccuracy.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/langaccuracy" ./scripts/langaccuracy)
"$bin/langaccuracy" "$@"
