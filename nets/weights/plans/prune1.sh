#!/usr/bin/env bash
# prune1 (docs/research-log.md, "Pruning nets for the 512-unit contact
# net"): wide1.wd (nets/weights/candidates/wide1.wd) kept round 7's pruning nets, which
# learned to rank moves as round 7's 256-unit contact net does. Round 7's
# own pruning-net stages again, with the 512-unit contact net in place of
# round 7's: its candidates (r7/candidates.db) labelled at 0 ply by round
# 7's nets with wide1's contact net (`start.wd`), the three pruning nets
# trained as round 7 trained them (gnubg's schedule, alpha 5 -> 0.001, 50
# epochs), giving `prune1.wd`. Only the contact pruning net can differ from
# wide1's: the crashed and race candidates get the same labels and the
# same starts. Then the prune check on round 6's held-out set (how often
# the pruned 1-ply search keeps the unpruned best move) for wide1.wd,
# prune1.wd and gnubg.wd.
#
# Run in a directory `prune1` beside r6/ and r7/, with `wide1.wd` a copy of
# nets/weights/candidates/wide1.wd and `trainer` on PATH (or TRAINER set; THREADS,
# default 2):
#   mkdir -p prune1 && cd prune1 && cp ../bgkit/nets/weights/candidates/wide1.wd .
#   bash ../bgkit/nets/weights/plans/prune1.sh
# Each step is skipped when its output exists. A few minutes of two cores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh" # T, th, gnubg, label_eval
[ -e start.wd ] || "$T" weights splice --from wide1.wd --net contact --into ../r7/race.wd -o start.wd
if [ ! -e candidates.db ]; then
  cp ../r7/candidates.db candidates.db.tmp && mv candidates.db.tmp candidates.db
fi
label_eval candidates.db start.wd --plies 0
prune_net() { # class from out
  [ -e "$3" ] || "$T" train --db candidates.db --class "$1" --weights "$2" -o "$3" --epochs 50 \
    --schedule gnubg --alpha-start 5 --alpha-low 0.001 --seed 1 --optimizer sgd --batch 256 \
    --prune -q "${th[@]}"
}
prune_net contact start.wd prune-contact.wd
prune_net crashed prune-contact.wd prune-crashed.wd
prune_net race prune-crashed.wd prune1.wd
for w in wide1.wd prune1.wd "$gnubg"; do
  echo "$w: $("$T" bench --prune-check --db ../r6/held.db --weights "$w" "${th[@]}")"
done
md5sum start.wd candidates.db prune1.wd
