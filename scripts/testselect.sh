#!/usr/bin/env bash
# The tests cos changes --tests selects, measured against per-test coverage
# on a real project's history (cobra by default): for each of the last N
# commits that touch non-test Go files, every test runs alone with
# -coverprofile (-coverpkg=./...) and covers the commit when it runs a line
# the commit added or changed; cos indexes the commit and selects the tests
# for the diff parent..commit. Prints a Markdown table per commit and in
# total: recall, precision, the selection's size beside the suite's, and
# every missed test with the lines it covers. The rules are in
# scripts/testselect/doc.go.
#
# Usage: bash scripts/testselect.sh [-v] [-n N] [--repo DIR] [--cache DIR]
#   -v           list, per commit, the selected tests that cover no changed line
#   -n N         how many commits (default 20)
#   --repo DIR   a git clone to measure (default: cobra, cloned into the cache)
#   --cache DIR  worktrees, test binaries and profiles, kept between runs
#                (default ${TMPDIR:-/tmp}/cos-testselect)
# Runs tests one package at a time (go test -p 1); the first run takes about
# 2 minutes a commit on 2 shared cores, a cached one seconds. Needs Go, git,
# and network access for the clone and cobra's modules.
set -euo pipefail
repo_root="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
cache="${TMPDIR:-/tmp}/cos-testselect"
repo=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo="$2"; shift 2 ;;
    --cache) cache="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
mkdir -p "$cache"
if [ -z "$repo" ]; then
  repo="$cache/cobra"
  [ -d "$repo/.git" ] || git clone -q https://github.com/spf13/cobra "$repo"
fi
bin=$(mktemp -d "${TMPDIR:-/tmp}/cos-testselect-bin.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd "$repo_root" && go build -o "$bin/cos" ./cmd/cos && go build -o "$bin/testselect" ./scripts/testselect)
"$bin/testselect" -repo "$repo" -cache "$cache" -cos "$bin/cos" ${args[@]+"${args[@]}"}
