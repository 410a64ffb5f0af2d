#!/usr/bin/env bash
# The Linux kernel part of scripts/bench.sh: unpacks Debian's linux-source
# tarball into WORK, cuts the Debian tail off its .gitignore (it ends in
# "/*", ignore everything), makes it a git repository with one commit, then
# `benchmcp kernel` (cos index fresh, again unchanged, after a 10-file edit
# under drivers/net; the cold first read of `cos call` and `cos serve`) and
# `benchmcp reads` on the indexed tree. Results go to stdout as JSON lines;
# progress to stderr. WORK keeps nothing afterwards (about 4 GB while it runs).
#
# Usage: bash scripts/bench_kernel.sh --tarball FILE --work DIR --cos BIN --benchmcp BIN
#          [--runs N] [--calls N] [--read-runs N] [--edit-dir DIR] [--query NAME]
#   --runs N       index runs (default 1: a fresh kernel index takes minutes)
#   --calls N      uids sampled for the reads (default 200)
#   --read-runs N  passes over the sample (default 3)
#   --edit-dir DIR folder of the tree whose .c files the edit run changes (default drivers/net)
#   --query NAME   the name the cold first read resolves (default kmalloc)
set -euo pipefail

tarball="" work="" cos="" benchmcp="" runs=1 read_runs=3 calls=200 edit_dir=drivers/net query=kmalloc
while [ $# -gt 0 ]; do
  case "$1" in
    --tarball|--work|--cos|--benchmcp|--runs|--calls|--read-runs|--edit-dir|--query)
      [ $# -ge 2 ] && [ -n "$2" ] || { echo "bench_kernel.sh: $1 needs a value (see --help)" >&2; exit 2; }
      case "$1" in
        --tarball) tarball="$2" ;;
        --work) work="$2" ;;
        --cos) cos="$2" ;;
        --benchmcp) benchmcp="$2" ;;
        --runs) runs="$2" ;;
        --calls) calls="$2" ;;
        --read-runs) read_runs="$2" ;;
        --edit-dir) edit_dir="$2" ;;
        --query) query="$2" ;;
      esac
      shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "bench_kernel.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
die() { echo "bench_kernel.sh: $*" >&2; exit 1; }
step() { echo "== kernel: $* ($(date -u +%H:%M:%S))" >&2; }
[ -n "$tarball" ] && [ -n "$work" ] && [ -n "$cos" ] && [ -n "$benchmcp" ] || die "--tarball, --work, --cos and --benchmcp are required"
[ -f "$tarball" ] || die "--tarball $tarball: not a file"
[ -x "$cos" ] || die "--cos $cos: not an executable file"
[ -x "$benchmcp" ] || die "--benchmcp $benchmcp: not an executable file"
for n in "$runs" "$calls" "$read_runs"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--runs, --calls and --read-runs take a whole number ≥ 1, not $n"
done

src="$work/kernel-src"
state="$work/kernel-state"
rm -rf "$src" "$state"
mkdir -p "$src"
trap 'rm -rf "$src" "$state"' EXIT

step "unpack $(basename "$tarball")"
tar -xf "$tarball" -C "$src" || die "$tarball: not a tarball tar can unpack"
tops=("$src"/*/)
[ "${#tops[@]}" = 1 ] && [ -d "${tops[0]}" ] || die "$tarball: want one top folder, found ${#tops[@]}"
tree="${tops[0]%/}"

# Debian appends to the kernel's .gitignore a block that ignores everything
# at the top ("/*", then "!/debian/"): git, and so cos, would see no file.
# Cut that block (from its "# Debian packaging" comment, or else from the
# "/*" line) with the comment lines before it.
if [ -f "$tree/.gitignore" ]; then
  awk '
    /^# Debian packaging/ || $0 == "/*" { exit }
    /^#?$/ { held = held $0 "\n"; next }
    { printf "%s", held; held = ""; print }
  ' "$tree/.gitignore" >"$tree/.gitignore.cut"
  mv "$tree/.gitignore.cut" "$tree/.gitignore"
fi
! grep -qx '/\*' "$tree/.gitignore" 2>/dev/null || die "$tree/.gitignore still ignores everything"

step "git init and commit ($(find "$tree" -type f | wc -l) files)"
git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" -c user.name=cos-bench -c user.email=cos-bench@localhost -c commit.gpgsign=false commit -q -m import

"$benchmcp" kernel -cos "$cos" -root "$tree" -state "$state" -tmp "$work" -runs "$runs" -edit-dir "$edit_dir" -query "$query"
step "MCP reads on the indexed kernel (sample of $calls functions, seed 1)"
"$benchmcp" reads -cos "$cos" -state "$state" -tmp "$work" -runs "$read_runs" -calls "$calls" -seed 1 -label kernel
