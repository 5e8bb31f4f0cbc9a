#!/usr/bin/env bash
# How fast this checkout evaluates a weights file against how fast another
# build of bgkit evaluated gnubg's own weights: `calibrate --weights FILE`
# of this checkout (one position after another, and `--batched`) beside
# `calibrate` with gnubg.wd of the build at git revision REV (default
# b462bfd, the build issue 33 measured "gnubg.wd ... today" with), one
# thread, same run, alternating, REPS times each (default 7); medians and
# ratios as a Markdown table. REV is built in a temporary worktree (a few
# minutes; needs this clone's history).
#
# Usage: benches/compare-weights.sh        (needs gnubg.wd: apt-get install gnubg)
#        REPS=9 ITERATIONS=200 WEIGHTS=nets/weights/bgkit.wd REV=b462bfd benches/compare-weights.sh
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-7}"
iterations="${ITERATIONS:-200}"
weights="${WEIGHTS:-nets/weights/bgkit.wd}"
rev="${REV:-b462bfd}"
gnubg_wd=/usr/lib/gnubg/gnubg.wd
[ -f "$gnubg_wd" ] || { echo "$gnubg_wd not found: apt-get install -y gnubg" >&2; exit 1; }
[ -f "$weights" ] || { echo "no weights file $weights" >&2; exit 1; }
git rev-parse --verify -q "$rev^{commit}" >/dev/null ||
  { echo "revision $rev is not in this clone's history (a shallow clone? git fetch --unshallow)" >&2; exit 1; }

cargo build --release -q -p bgkit-benches
ours="${CARGO_TARGET_DIR:-$PWD/target}/release/calibrate"
dir="$(mktemp -d)"
trap 'git worktree remove --force "$dir/src" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git worktree add -q --detach "$dir/src" "$rev"
(cd "$dir/src" && CARGO_TARGET_DIR="$dir/target" cargo build --release -q -p bgkit-benches)
theirs="$dir/target/release/calibrate"

. benches/common.sh
once() { # binary weights [options] → evaluations a second
  "$1" --weights "$2" --iterations "$iterations" --threads 1 "${@:3}" | calibration_figure
}

base=""; one=""; batched=""
for _ in $(seq "$reps"); do
  base="$base $(once "$theirs" "$gnubg_wd")"
  one="$one $(once "$ours" "$weights")"
  batched="$batched $(once "$ours" "$weights" --batched)"
done
b=$(median_of $base)
o=$(median_of $one)
m=$(median_of $batched)

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$iterations batches of 1024 per run, 1 thread, $reps runs each (medians), evaluations a second"
echo
echo "| $rev, gnubg.wd | this checkout, $weights | ratio | --batched | ratio |"
echo "|---|---|---|---|---|"
awk -v b="$b" -v o="$o" -v m="$m" 'BEGIN { printf "| %d | %d | %.2fx | %d | %.2fx |\n", b, o, o / b, m, m / b }'
