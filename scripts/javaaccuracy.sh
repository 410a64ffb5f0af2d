#!/usr/bin/env bash
# Accuracy of cos's Java calls edges against javac: a small program on
# javac's Tree API (scripts/javaaccuracy/oracle/CallOracle.java: JavacTask
# parse + analyze, a TreePathScanner resolving every method invocation and
# `new` with Trees.getElement) run over google/gson at commit
# 9835b6f90192f79cdf5300c528fc6212455fb6c1 (gson/src/main/java, 80 files,
# about 19,000 lines), fetched once with git. Prints one Markdown section
# per project (precision and recall per call-site category, callee kind and
# context, the wall time of our extraction and of the oracle) and a
# summary table. The mapping rules are in scripts/internal/calloracle/doc.go,
# the categories in scripts/javaaccuracy/doc.go. cos's Java extractor
# (extract/java) scored precision 100%, recall 99.6% on gson.
#
# Usage: bash scripts/javaaccuracy.sh [-v] [--top N] [--json FILE] [--project NAMES]
#        bash scripts/javaaccuracy.sh [-v] --dir DIR [--src DIRS]
#   -v                 list the top missed, false-positive and unjudged edges per row
#   --top N            how many (default 10)
#   --json FILE        also write the raw numbers to FILE
#   --project NAMES    comma-separated projects: gson
#   --dir DIR          measure this folder instead; --src: its source folders
#                      (comma-separated, relative to DIR; default DIR itself)
#   --oracle-out FILE  also write the oracle's JSON lines to FILE
#   --oracle-in FILE   score these JSON lines instead of running javac
# Needs Go and a JDK 17 or later (javac and java on PATH; Debian:
# apt-get install openjdk-17-jdk-headless), git and network access for the
# first fetch. Sources are kept in $COS_ORACLE_CACHE/src/NAME (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/cos-oracles). It builds the extractor of
# the working tree as it is. The oracle takes about a minute on gson.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
command -v go >/dev/null || { echo "javaaccuracy.sh: go is not on PATH (Go 1.26 is needed)" >&2; exit 1; }
if [ -z "$(printf '%s\n' "$@" | grep -x -e --oracle-in -e -oracle-in)" ]; then
  command -v javac >/dev/null && command -v java >/dev/null || {
    echo "javaaccuracy.sh: javac/java are not on PATH (install a JDK 17: apt-get install openjdk-17-jdk-headless)" >&2; exit 1; }
fi
bin=$(mktemp -d "${TMPDIR:-/tmp}/cos-javaaccuracy.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/javaaccuracy" ./scripts/javaaccuracy)
"$bin/javaaccuracy" "$@"
