#!/usr/bin/env bash
# Thread scaling of the training loop's parallel commands: each job runs
# with --threads 1 and with --threads 2 (REPS times each, alternating), and
# the table gives the medians of wall time and the speed-up. The jobs'
# outputs are compared byte for byte between the thread counts. The last
# column is the machine's own ceiling for the job: two one-thread copies run
# side by side, their speed-up over one alone (2 × one copy's time / the
# longer copy's time). On a virtual machine whose two cores share a physical core,
# or beside other work, it is well below 2×, and no program can beat it.
#
# Jobs (gnubg's weights, small sizes so the whole run takes a few minutes):
#   td       trainer td, 4,000 games in batches of 20 games
#   tdpipe   the same with --pipeline (each batch played while the one
#            before trains)
#   label    trainer db label eval --plies 2 --prune on about 900 positions
#   rollout  trainer db rollout --trials 1296 on 4 contact positions
#   adam     trainer train --optimizer adam, 20 epochs on about 17,000
#            contact positions (labelled at 0 ply)
#   adam512  the same positions, 5 epochs, from `trainer new --hidden 512`
#            (the size of the shipped contact net), the plans' settings
#   adamwide the 512-unit net of adam512 on a training set of a realistic
#            size: 3 epochs on about 68,000 contact positions (4,000
#            games; making them takes about 40 s before the first job)
#
# Usage: benches/scaling.sh            REPS=5 benches/scaling.sh
#        JOBS="td adam" benches/scaling.sh
#        TRAINER=/path/to/older/trainer benches/scaling.sh   (another build)
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
jobs="${JOBS:-td tdpipe label rollout adam adam512 adamwide}"
weights="${WEIGHTS:-/usr/lib/gnubg/gnubg.wd}"
if [ -n "${TRAINER:-}" ]; then
  trainer="$(realpath "$TRAINER")"
else
  cargo build --release -q -p trainer
  trainer="${CARGO_TARGET_DIR:-$PWD/target}/release/trainer"
fi
. benches/common.sh
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
now() { date +%s.%N; }

# The positions: 0-ply self-play positions, a few hundred labelled at 2 plies.
"$trainer" db generate -q 2>/dev/null --weights "$weights" --games 100 --threshold 0.02 --seed 7 -o all.db
"$trainer" db split all.db --holdout 0.5 --seed 1 -o rest.db -o some.db >/dev/null
cp some.db labelled.db
"$trainer" db label eval -q labelled.db --weights "$weights" --plies 2 --prune
"$trainer" db split all.db --holdout 0.01 --seed 2 -o big.db -o few.db >/dev/null
# Adam's positions: many more, labelled by the 0-ply evaluation (cheap).
"$trainer" db generate -q 2>/dev/null --weights "$weights" --games 1000 --threshold 0.02 --seed 8 -o adam.db
"$trainer" db label eval -q adam.db --weights "$weights" --plies 0
"$trainer" new -o new512.wd --hidden 512 --beta-hidden 1 --seed 3 >/dev/null
case " $jobs " in
  *" adamwide "*)
    "$trainer" db generate -q 2>/dev/null --weights "$weights" --games 4000 --threshold 0.02 --seed 9 -o wide.db
    "$trainer" db label eval -q wide.db --weights "$weights" --plies 0 ;;
esac

run() { # job threads [dir] → its command, run in a fresh copy; prints seconds
  local job=$1 t=$2 d=${3:-run$2} start end
  rm -rf "$d" && mkdir "$d" && cd "$d"
  case $job in
    label) cp ../some.db in.db ;;
    rollout) cp ../few.db in.db ;;
  esac
  start=$(now)
  case $job in
    td) "$trainer" td -q --weights "$weights" -o out.wd --games 4000 --batch-games 20 --seed 3 --checkpoint-every 0 --eval-every 0 --threads "$t" ;;
    tdpipe) "$trainer" td -q --weights "$weights" -o out.wd --games 4000 --batch-games 20 --pipeline --seed 3 --checkpoint-every 0 --eval-every 0 --threads "$t" ;;
    label) "$trainer" db label eval -q in.db --weights "$weights" --plies 2 --prune --threads "$t" ;;
    rollout) "$trainer" db rollout -q in.db --weights "$weights" --trials 1296 --seed 5 --threads "$t" ;;
    adam) "$trainer" train -q --db ../adam.db --class contact --weights "$weights" -o out.wd --optimizer adam --alpha-start 0.001 --alpha-low 0.0001 --epochs 20 --seed 4 --threads "$t" ;;
    adam512) "$trainer" train -q --db ../adam.db --class contact --weights ../new512.wd -o out.wd --optimizer adam --schedule cosine --alpha-start 0.005 --alpha-low 0.00005 --batch 256 --equity-weight 1 --epochs 5 --seed 4 --threads "$t" ;;
    adamwide) "$trainer" train -q --db ../wide.db --class contact --weights ../new512.wd -o out.wd --optimizer adam --schedule cosine --alpha-start 0.005 --alpha-low 0.00005 --batch 256 --equity-weight 1 --epochs 3 --seed 4 --threads "$t" ;;
  esac >/dev/null
  end=$(now)
  cd ..
  echo "$end - $start" | bc -l
}

digest() { (cd "run$1" && find . -type f ! -name '*.json' -print0 | sort -z | xargs -0 md5sum); }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg); $reps runs each (medians)"
echo
echo "| job | 1 thread | 2 threads | speed-up | same bytes | ceiling (2 one-thread copies) |"
echo "|---|---|---|---|---|---|"
for job in $jobs; do
  one=""; two=""; pair=""
  for i in $(seq "$reps"); do
    one="$one $(run "$job" 1)"
    two="$two $(run "$job" 2)"
    # Each copy times its own command, as `run` does; the pair took the
    # longer of the two. `wait` on the copy's pid fails the script if it did.
    run "$job" 1 pairA >pairA.t &
    copy=$!
    run "$job" 1 pairB >pairB.t
    wait "$copy"
    pair="$pair $(sort -g pairA.t pairB.t | tail -1)"
  done
  same=no
  [ "$(digest 1)" = "$(digest 2)" ] && same=yes
  m1=$(median_of $one)
  m2=$(median_of $two)
  mp=$(median_of $pair)
  printf '| %s | %.2f s | %.2f s | %.2f× | %s | %.2f× |\n' "$job" "$m1" "$m2" "$(echo "$m1 / $m2" | bc -l)" "$same" \
    "$(echo "2 * $m1 / $mp" | bc -l)"
done
