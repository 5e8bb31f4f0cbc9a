#!/usr/bin/env bash
# Side-by-side benchmark: bgkit's makebearoff vs gnubg 1.07's, same machine,
# same run. Each case runs REPS times (default 3) per tool; medians and the
# speed-up ratio are printed as a Markdown table. Then bgkit alone on the
# large sizes gnubg takes hours for (skip with LARGE=0).
#
# Usage: benches/compare-makebearoff.sh        (needs /usr/games/makebearoff: apt-get install gnubg)
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
large="${LARGE:-1}"
cargo build --release -q -p makebearoff
ours="$PWD/target/release/makebearoff"
gnubg=/usr/games/makebearoff
[ -x "$gnubg" ] || { echo "gnubg's makebearoff not found: apt-get install -y gnubg" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

. benches/common.sh

# time_one TOOL ARGS... -> wall seconds (and leaves peak RSS KB in $dir/rss)
time_one() {
  local s e
  s=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$dir/rss" "$@" -f "$dir/out.bd" >/dev/null 2>&1
  e=$(date +%s.%N)
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", e - s }'
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1e6 }' /proc/meminfo); reps: $reps (medians)"
echo
echo "| case | gnubg 1.07 s | bgkit s | speed-up | bgkit peak RSS MB | same bytes |"
echo "|---|---|---|---|---|---|"
for args in "-o 6" "-o 7" "-o 8" "-t 6x5" "-t 6x6"; do
  g=$(for i in $(seq "$reps"); do time_one "$gnubg" $args; done | median)
  md5_g=$(md5sum <"$dir/out.bd")
  o=$(for i in $(seq "$reps"); do time_one "$ours" $args --checkpoint-every 0 -q; done | median)
  rss=$(( $(cat "$dir/rss") / 1024 ))
  md5_o=$(md5sum <"$dir/out.bd")
  same=no; [ "$md5_g" = "$md5_o" ] && same=yes
  awk -v c="$args" -v g="$g" -v o="$o" -v r="$rss" -v s="$same" \
    'BEGIN { printf "| %s | %.2f | %.3f | %.0fx | %d | %s |\n", c, g, o, g / o, r, s }'
done

if [ "$large" = 1 ]; then
  echo
  echo "| case (bgkit only) | wall s | peak RSS MB |"
  echo "|---|---|---|"
  for args in "-t 6x11" "-o 13"; do
    o=$(time_one "$ours" $args --checkpoint-every 0 -q)
    awk -v c="$args" -v o="$o" -v r="$(cat "$dir/rss")" 'BEGIN { printf "| %s | %.1f | %.0f |\n", c, o, r / 1024 }'
  done
fi
