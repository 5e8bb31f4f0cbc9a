#!/usr/bin/env bash
# rivals1 (docs/research-log.md, "The moves not played"): does a net learn
# to choose moves better when it is trained on the moves that compete with
# the one played? The rounds' positions are the results of moves played;
# at 0 ply a net's play is its ranking of a roll's moves, and the rivals of
# the move it plays are positions no round labels. For 15 % of round 7's
# training positions (`db split`, seed 2101), one roll each (seed 2102),
# the three contact moves wide1.wd (then the shipped file) ranks first at
# 0 ply (`db candidates --best 3`), less the positions round 7 and the
# held-out sets already hold, labelled by gnubg.wd at 2 plies with pruning
# (`rivals.db`).
# Then wide1's recipe (class-sets.sh `train_512`: a 512-unit contact net
# from random weights, Adam, 40 epochs, mu = 1) on wide1's training set and
# the rivals, put into round 7's file (`rivals1.wd`). The control is wide1
# itself (the same recipe, seed and start without the rivals; round 8's
# 44 % more game positions, wide2, bought nothing in play). Measured on
# the four held-out sets, against gnubg.wd on wide1's dice (seeds 17001,
# 17003: +0.0215, +0.0212) and against wide1 (seed 17011), 100,000
# duplicate games each.
#
# Run in a directory `rivals1` beside r6/, r7/, fair/, gnubg-sets/ and
# gnubg-games/ (after wide1.sh: gnubg-games/train.db), with `wide1.wd` a
# copy of nets/weights/candidates/wide1.wd, `r7.wd` a copy of
# nets/weights/candidates/r7.wd and `trainer` on PATH (or TRAINER set;
# THREADS, default 2):
#   mkdir -p rivals1 && cd rivals1
#   cp ../bgkit/nets/weights/candidates/wide1.wd .
#   cp ../bgkit/nets/weights/candidates/r7.wd .
#   bash ../bgkit/nets/weights/plans/rivals1.sh
# STOP_AFTER_LABELS=1 stops once the rivals are labelled (they need only
# r6/ and r7/). Each step is skipped when its output exists; the labelling
# resumes its journal and the training its checkpoint.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh" # T, th, gnubg, label_2ply, train_512, bench_contact
if [ ! -e sub.db ]; then
  "$T" db split ../r7/train.db --holdout 0.15 --seed 2101 -o rest.db -o sub.db
  rm -f rest.db rest.db.json
fi
[ -e best3.db ] || "$T" db candidates sub.db --classes contact --best 3 --weights wide1.wd \
  --seed 2102 -o best3.db
[ -e rivals.db ] || "$T" db merge best3.db --exclude ../r7/train.db --exclude ../r6/held.db \
  --exclude ../r7/held.db -o rivals.db
label_2ply rivals.db
[ -n "${STOP_AFTER_LABELS:-}" ] && exit 0
[ -e train.db ] || "$T" db merge ../gnubg-games/train.db rivals.db \
  --exclude ../fair/fair1.db --exclude ../fair/fair2.db \
  --exclude ../gnubg-sets/gnubg1.db --exclude ../gnubg-sets/gnubg2.db -o train.db
train_512 train.db s512.wd
[ -e rivals1.wd ] || "$T" weights splice --from s512.wd --net contact --into r7.wd -o rivals1.wd
bench_contact "$gnubg" wide1.wd rivals1.wd
for seed in 17001 17003; do
  "$T" play --weights rivals1.wd --vs "$gnubg" --games 100000 --seed "$seed" "${th[@]}"
done
"$T" play --weights rivals1.wd --vs wide1.wd --games 100000 --seed 17011 "${th[@]}"
md5sum rivals.db train.db s512.wd rivals1.wd
