#!/usr/bin/env bash
# Regenerates every database whose MD5 gnubg's manual publishes (one-sided
# 1..13 points, two-sided 6x1..6x11) with bgkit's makebearoff --verify, and
# prints a Markdown table with wall time and peak memory per database.
# Not part of the test suite: the large sizes take minutes and gigabytes.
#
# Usage: scripts/verify-published-md5.sh [OUTDIR]   (default: a temp dir, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p makebearoff
bin="$PWD/target/release/makebearoff"
out="${1:-}"
cleanup=""
if [ -z "$out" ]; then out="$(mktemp -d)"; cleanup="$out"; fi
mkdir -p "$out"
failures=0
echo "| database | MD5 check | wall s | peak RSS MB |"
echo "|---|---|---|---|"
run() {
  local name="$1"; shift
  local log="$out/$name.log"
  local start end status=0
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$out/$name.rss" "$bin" "$@" -f "$out/$name.bd" --verify --checkpoint-every 0 -q >"$log" 2>&1 || status=$?
  end=$(date +%s.%N)
  local verdict="FAILED"
  if [ "$status" = 0 ] && grep -q "matches gnubg's published checksum" "$log"; then verdict="matches"; else failures=$((failures + 1)); fi
  awk -v n="$name" -v v="$verdict" -v s="$start" -v e="$end" -v r="$(tail -1 "$out/$name.rss")" \
    'BEGIN { printf "| %s | %s | %.1f | %.0f |\n", n, v, e - s, r / 1024 }'
  rm -f "$out/$name.bd"
}
for p in $(seq 1 13); do run "os$p" -o "$p"; done
for c in $(seq 1 11); do run "ts6x$c" -t "6x$c"; done
[ -n "$cleanup" ] && rm -rf "$cleanup"
echo
echo "$failures failure(s)"
[ "$failures" = 0 ]
