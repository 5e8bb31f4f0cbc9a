#!/usr/bin/env bash
# Side-by-side benchmark: bgkit's makehyper vs gnubg 1.07's, same machine,
# same run, default threshold (1e-5), checkpoints on for both. Each case
# runs REPS times (default 3) per tool; medians, the speed-up ratio, sweeps
# and peak RSS are printed as a Markdown table, with the largest difference
# between the two databases (`bearoff compare`). Then bgkit alone on 3
# chequers (gnubg takes about 2.5 hours): wall time, sweeps, seconds per
# sweep, peak RSS (skip with LARGE=0; needs about 7.5 GB of memory and
# 0.6 GB of disk in $TMPDIR).
#
# Usage: benches/compare-makehyper.sh    (needs /usr/games/makehyper: apt-get install gnubg)
#        REPS=1 LARGE=0 benches/compare-makehyper.sh
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
large="${LARGE:-1}"
cargo build --release -q -p makehyper -p bearoff
bin="${CARGO_TARGET_DIR:-$PWD/target}/release"
ours="$bin/makehyper"
bearoff="$bin/bearoff"
gnubg=/usr/games/makehyper
[ -x "$gnubg" ] || { echo "gnubg's makehyper not found: apt-get install -y gnubg" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

. benches/common.sh

# time_one OUT TOOL ARGS... -> wall seconds; runs in $dir (gnubg overflows a
# 20-byte buffer for checkpoint names longer than 15 characters), leaves
# peak RSS KB in $dir/rss and the tool's output in $dir/log
time_one() {
  local out=$1 s e
  shift
  s=$(date +%s.%N)
  (cd "$dir" && /usr/bin/time -f "%M" -o rss "$@" -f "$out" >log 2>&1)
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1e6 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg); reps: $reps (medians)"
echo
echo "| case | gnubg 1.07 s | bgkit s | speed-up | gnubg iterations | bgkit sweeps | gnubg peak RSS MB | bgkit peak RSS MB | max abs diff |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in 1 2; do
  g=$(for _ in $(seq "$reps"); do time_one g.bd "$gnubg" -c "$c"; done | median)
  g_rss=$(( $(cat "$dir/rss") / 1024 ))
  g_it=$(tr '\r' '\n' <"$dir/log" | grep -c '^\*\*\* Iteration' || true)
  o=$(for _ in $(seq "$reps"); do time_one o.bd "$ours" -c "$c"; done | median)
  o_rss=$(( $(cat "$dir/rss") / 1024 ))
  o_sw=$(grep -c ': sweep ' "$dir/log" || true)
  diff=$("$bearoff" compare "$dir/o.bd" "$dir/g.bd" --tolerance 1e-4 | awk '/^largest difference/ { print $3 }' || true)
  awk -v c="-c $c" -v g="$g" -v o="$o" -v gi="$g_it" -v os="$o_sw" -v gr="$g_rss" -v orss="$o_rss" -v d="$diff" \
    'BEGIN { printf "| %s | %.2f | %.3f | %.1fx | %d | %d | %d | %d | %s |\n", c, g, o, g / o, gi, os, gr, orss, d }'
done

if [ "$large" = 1 ]; then
  echo
  echo "| case (bgkit only) | wall s | tables s | sweeps | s per sweep (median) | peak RSS MB |"
  echo "|---|---|---|---|---|---|"
  o=$(time_one o3.bd "$ours" -c 3)
  tables=$(sed -n 's/.*(\([0-9.]*\) s to build the successor tables).*/\1/p' "$dir/log")
  sweeps=$(grep -c ': sweep ' "$dir/log" || true)
  per=$(sed -n 's/.*: sweep [0-9]*: norm of delta [0-9.]*, \([0-9.]*\) s$/\1/p' "$dir/log" | median)
  awk -v o="$o" -v t="$tables" -v n="$sweeps" -v p="$per" -v r="$(cat "$dir/rss")" \
    'BEGIN { printf "| -c 3 | %.1f | %.1f | %d | %.2f | %.0f |\n", o, t, n, p, r / 1024 }'
fi
