#!/usr/bin/env bash
# Side-by-side benchmark: a cubeless 0-ply rollout by bgkit (`trainer db
# rollout`) and by gnubg 1.07 (`gnubg -t`, `rollout`), same positions, same
# trials, one thread each, same run. Each tool runs REPS times (default 3),
# alternating; medians of the wall times and their ratio are printed as a
# Markdown table. gnubg's time includes its start-up (about 0.3 s).
#
# gnubg's settings: 1,296 trials, Mersenne Twister, quasi-random dice, no
# variance reduction, cubeless, 0-ply chequer play without pruning, no
# truncation but at exact bearoff positions. bgkit's: `--trials 1296
# --threads 1` (its defaults are the same rollout), once in its default
# arithmetic (the reference CPU's reciprocal, emulated: the same bits on
# every CPU) and once with `--arithmetic native-rcp` (this CPU's own
# reciprocal instruction, as gnubg's SSE code uses it: gnubg's bits on
# this CPU).
#
# Usage: benches/compare-rollout.sh      (needs /usr/games/gnubg and python3)
#        REPS=5 TRIALS=1296 IDS="MU/wATDgc+EBYA rM7gAQyx3cDBAA" benches/compare-rollout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
trials="${TRIALS:-1296}"
ids="${IDS:-MU/wATDgc+EBYA}"
gnubg=/usr/games/gnubg
[ -x "$gnubg" ] || { echo "gnubg not found: apt-get install -y gnubg" >&2; exit 1; }
command -v script >/dev/null || { echo "script not found: apt-get install -y bsdutils" >&2; exit 1; }
cargo build --release -q -p trainer
trainer="${CARGO_TARGET_DIR:-$PWD/target}/release/trainer"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# gnubg-nn's 20-letter key of a position ID (its 10 bytes, high nibble first).
for id in $ids; do
  python3 -c 'import base64, sys
b = base64.b64decode(sys.argv[1] + "==")[:10]
print("".join(chr(65 + (x >> 4)) + chr(65 + (x & 15)) for x in b), "0 0 0 0 0")' "$id"
done >"$dir/positions.dat"
"$trainer" db import "$dir/positions.dat" -o "$dir/positions.db" >/dev/null

now() { date +%s.%N; }
. benches/common.sh

gnubg_once() {
  {
    printf 'set rng mersenne\nset rollout rng mersenne\nset rollout trials %s\n' "$trials"
    printf 'set rollout cubeful off\nset rollout varredn off\nset rollout quasirandom on\n'
    printf 'set rollout seed 1\nset rollout truncation off\n'
    printf 'set rollout bearofftruncation exact on\nset rollout bearofftruncation onesided off\n'
    printf 'set rollout chequerplay plies 0\nset rollout chequerplay prune off\n'
    printf 'set rollout chequerplay cubeful off\nset rollout later enable off\nset threads 1\n'
    for id in $ids; do printf 'new game\nset board %s\nrollout\n' "$id"; done
  } >"$dir/commands"
  local start end
  start=$(now)
  script -qc "$gnubg -t -q -r < $dir/commands" /dev/null >"$dir/gnubg.out" 2>&1
  end=$(now)
  grep -q "Rollout done" "$dir/gnubg.out" || { echo "gnubg did not finish its rollout" >&2; exit 1; }
  echo "$end - $start" | bc -l
}

ours_once() { # [arithmetic]
  cp "$dir/positions.db" "$dir/run.db"
  local start end
  start=$(now)
  "$trainer" db rollout "$dir/run.db" --trials "$trials" --threads 1 -q \
    --arithmetic "${1:-gnubg-fastmath}" >/dev/null
  end=$(now)
  echo "$end - $start" | bc -l
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); positions: $ids; $trials trials; reps: $reps (medians)"
echo
g=""; o=""; n=""
for i in $(seq "$reps"); do
  g="$g $(gnubg_once)"
  o="$o $(ours_once)"
  n="$n $(ours_once native-rcp)"
done
gm=$(median_of $g)
om=$(median_of $o)
nm=$(median_of $n)
echo "| rollout, 1 thread | gnubg 1.07 | bgkit | speed-up |"
echo "|---|---|---|---|"
awk -v a="$gm" -v b="$om" 'BEGIN { printf "| wall time, default arithmetic | %.2f s | %.2f s | %.2fx |\n", a, b, a / b }'
awk -v a="$gm" -v b="$nm" 'BEGIN { printf "| wall time, native-rcp | %.2f s | %.2f s | %.2fx |\n", a, b, a / b }'
