#!/usr/bin/env bash
# What issue 34 measures of a candidate net, in one go (docs/research-log.md,
# "The curve by round"): its held-out 0-ply equity RMS by class on the two
# fair sets beside gnubg.wd's, a duplicate-dice match against gnubg.wd at
# 0 ply, and, when an Open Sage environment is given, a match against Open
# Sage's raw net through the engine adapter.
#
# Usage (from the repository, `trainer` built or on PATH):
#   SEED=N nets/weights/plans/measure.sh WEIGHTS
#   SEED=N OS_SEED=M V=target/engines-venv nets/weights/plans/measure.sh WEIGHTS
# Settings (environment):
#   SEED      seed of the match against gnubg.wd (required: a seed used for
#             nothing else, so the dice are fresh)
#   GAMES     games of that match (default 100000)
#   FAIR      directory holding fair1.db and fair2.db (fair-sets.sh; default
#             ../rounds/fair); sets that are missing are skipped
#   V         virtual environment with bgsage (scripts/test.sh makes
#             target/engines-venv); without it no Open Sage match
#   OS_SEED   seed of the Open Sage match (required with V)
#   OS_GAMES  its games (default 20000)
#   TRAINER   the trainer binary (default target/release/trainer)
set -euo pipefail
cd "$(dirname "$0")/../../.."
weights="${1:?usage: SEED=N measure.sh WEIGHTS}"
[ -f "$weights" ] || { echo "measure.sh: $weights: no such weights file" >&2; exit 2; }
seed="${SEED:?SEED: the seed of the match against gnubg.wd (one used for nothing else)}"
T="${TRAINER:-target/release/trainer}"
[ -x "$T" ] || cargo build --release -q -p trainer
gnubg=/usr/lib/gnubg/gnubg.wd
[ -f "$gnubg" ] || { echo "measure.sh: $gnubg is needed: apt-get install -y gnubg" >&2; exit 2; }
fair="${FAIR:-../rounds/fair}"

echo "# $weights (md5 $(md5sum <"$weights" | cut -d' ' -f1))"
for set in fair1 fair2; do
  db="$fair/$set.db"
  [ -f "$db" ] || { echo "($db missing: skipped)"; continue; }
  echo
  echo "## held-out equity RMS on $set: this net, then gnubg.wd"
  "$T" bench --db "$db" --weights "$weights"
  "$T" bench --db "$db" --weights "$gnubg"
done
echo
echo "## against gnubg.wd at 0 ply, ${GAMES:-100000} duplicate games, seed $seed"
"$T" play --json --weights "$weights" --vs "$gnubg" --games "${GAMES:-100000}" --seed "$seed"
if [ -n "${V:-}" ]; then
  os_seed="${OS_SEED:?OS_SEED: the seed of the Open Sage match}"
  echo
  echo "## against Open Sage's raw net, ${OS_GAMES:-20000} duplicate games, seed $os_seed"
  "$T" play --json --weights "$weights" --vs-engine "$V/bin/python engines/opensage-engine" \
    --games "${OS_GAMES:-20000}" --seed "$os_seed" --threads 2
fi
