#!/usr/bin/env bash
# Side-by-side benchmark: bgkit's calibrate vs gnubg 1.07's `calibrate`
# (Debian's `gnubg -t`), same machine, same run, 1 and 2 threads. Each case
# runs REPS times per tool (default 3), alternating; medians and the ratio
# are printed as a Markdown table.
#
# With CHART=FILE.png, also draws the figures (bench-chart, plotters).
# bgkit evaluates one position after another, as gnubg's calibrate does; a
# last column gives bgkit's `calibrate --batched` (each batch through the
# evaluator's batch path, as its move choices and rollouts evaluate a
# roll's candidates) beside it.
#
# Usage: benches/compare-calibrate.sh     (needs /usr/games/gnubg: apt-get install gnubg)
#        REPS=5 ITERATIONS=200 benches/compare-calibrate.sh
#        CHART=docs/calibrate-threads.png benches/compare-calibrate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
iterations="${ITERATIONS:-100}"
cargo build --release -q -p bgkit-benches
bin="${CARGO_TARGET_DIR:-$PWD/target}/release"
ours="$bin/calibrate"
csv="$(mktemp)"
trap 'rm -f "$csv"' EXIT
echo "threads,gnubg,bgkit" >"$csv"
gnubg=/usr/games/gnubg
[ -x "$gnubg" ] || { echo "gnubg not found: apt-get install -y gnubg" >&2; exit 1; }

. benches/common.sh

gnubg_once() {
  printf 'set threads %s\ncalibrate %s\n' "$1" "$iterations" | "$gnubg" -t -q 2>/dev/null | calibration_figure
}

ours_once() { # threads [more options]
  "$ours" --threads "$1" --iterations "$iterations" "${@:2}" | calibration_figure
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $iterations batches of 1024 per run; reps: $reps (medians)"
echo
echo "| threads | gnubg 1.07 evals/s | bgkit evals/s | ratio | bgkit --batched evals/s | ratio |"
echo "|---|---|---|---|---|---|"
for threads in 1 2; do
  g=""; o=""; b=""
  for i in $(seq "$reps"); do
    g="$g $(gnubg_once "$threads")"
    o="$o $(ours_once "$threads")"
    b="$b $(ours_once "$threads" --batched)"
  done
  gm=$(median_of $g)
  om=$(median_of $o)
  bm=$(median_of $b)
  ratio=$(awk -v a="$om" -v b="$gm" 'BEGIN { printf "%.2fx", a / b }')
  bratio=$(awk -v a="$bm" -v b="$gm" 'BEGIN { printf "%.2fx", a / b }')
  echo "| $threads | $gm | $om | $ratio | $bm | $bratio |"
  echo "$threads,$gm,$om" >>"$csv"
done
if [ -n "${CHART:-}" ]; then
  "$bin/bench-chart" "$csv" -o "$CHART"
  echo
  echo "chart: $CHART"
fi
