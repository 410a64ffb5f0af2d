#!/usr/bin/env bash
# Accuracy of cos's C and C++ calls edges against clang: clang
# -fsyntax-only -Xclang -ast-dump=json on every translation unit, streamed
# (scripts/clangaccuracy), every CallExpr, CXXMemberCallExpr and
# CXXConstructExpr resolved to the declaration it references, that
# declaration's definition found across the units. Projects, fetched once
# with git:
#   lua      lua/lua at 53b41d0cddd80bf33fdc631bdd32e3ba53842b89 (C, the
#            34 top-level .c files but onelua.c, -std=c99 -DLUA_USE_LINUX;
#            about 34,000 lines)
#   leveldb  google/leveldb at 78a352f47ed6c1e9d750545e9b242289185b87e1
#            (C++, db/ table/ util/ helpers/memenv/ .cc files but tests,
#            benchmarks and Windows, -std=c++17 -I. -Iinclude; about
#            11,000 lines of .cc and 5,700 of headers)
# Prints one Markdown section per project (precision and recall per
# call-site category, callee kind and context, the wall time of our
# extraction and of the oracle) and a summary table. The mapping rules are
# in scripts/internal/calloracle/doc.go, the categories in
# scripts/clangaccuracy/doc.go. With no C/C++ extractor in cos, recall is 0
# and precision "–".
#
# Usage: bash scripts/clangaccuracy.sh [-v] [--top N] [--json FILE] [--project NAMES] [--clang PATH]
#        bash scripts/clangaccuracy.sh [-v] --dir DIR [--lang C++]
#   -v                 list the top missed, false-positive and unjudged edges per row
#   --top N            how many (default 10)
#   --json FILE        also write the raw numbers to FILE
#   --project NAMES    comma-separated projects: lua,leveldb
#   --clang PATH       the clang to run (default clang-14, then clang)
#   --dir DIR          measure this folder instead: its compile_commands.json, else
#                      every .c/.cc/.cpp file with -I for each folder holding headers
#   --oracle-out FILE  also write the oracle's JSON lines to FILE (one project)
#   --oracle-in FILE   score these JSON lines instead of running clang (one project)
# Needs Go, clang (Debian: apt-get install clang-14; any clang 10 or later
# prints the mangled names the oracle keys definitions by), git and
# network access for the first fetch. Sources are kept in
# $COS_ORACLE_CACHE/src/NAME (default ${XDG_CACHE_HOME:-$HOME/.cache}/cos-oracles).
# It builds the extractor of the working tree as it is. The oracle takes
# about a minute on lua (34 units) and 4 CPU-minutes on leveldb (40
# units, each dumping libstdc++'s headers too).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
command -v go >/dev/null || { echo "clangaccuracy.sh: go is not on PATH (Go 1.26 is needed)" >&2; exit 1; }
if [ -z "$(printf '%s\n' "$@" | grep -x -e --oracle-in -e -oracle-in -e --clang -e -clang)" ]; then
  command -v clang-14 >/dev/null || command -v clang >/dev/null || {
    echo "clangaccuracy.sh: clang is not on PATH (Debian: apt-get install clang-14)" >&2; exit 1; }
fi
bin=$(mktemp -d "${TMPDIR:-/tmp}/cos-clangaccuracy.XXXXXX")
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/clangaccuracy" ./scripts/clangaccuracy)
"$bin/clangaccuracy" "$@"
