#!/usr/bin/env bash
# teacher1 (docs/research-log.md, "bgkit's own net as the teacher"): is
# wide1.wd at 2 plies a better teacher than gnubg.wd at 2 plies? The
# contact positions of gnubg.wd's games (gnubg-games.sh) labelled again,
# by wide1.wd at 2 plies with its pruning nets (`wlab.db`); wide1.wd's
# 512-unit contact net trained 4 more epochs on them (`tw.wd`) and, as the
# control, on the same positions with gnubg.wd's labels (`tg.wd`): Adam,
# batch 256, cosine 0.0005 -> 0.000005, mu = 1. Each is measured on the
# four held-out sets and against gnubg.wd over 100,000 duplicate games on
# two seeds.
#
# Run in a directory `teacher1` beside gnubg-games/, fair/ and
# gnubg-sets/, with `wide1.wd` a copy of nets/weights/candidates/wide1.wd
# and `trainer` on PATH:
#   mkdir -p teacher1 && cd teacher1 && cp ../bgkit/nets/weights/candidates/wide1.wd .
#   bash ../bgkit/nets/weights/plans/teacher1.sh
# Each step is skipped when its output exists; the labelling resumes its
# journal. About 35 minutes of two cores for the labels.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh" # T, th, gnubg, label_2ply, bench_contact
if [ ! -e wlab.db.labelled ] && [ ! -e wlab.db ]; then
  cp ../gnubg-games/contact.db wlab.db.tmp && mv wlab.db.tmp wlab.db
fi
label_2ply wlab.db wide1.wd
fine_tune() {
  [ -e "$1.wd" ] || "$T" train --db "$2" --class contact --weights wide1.wd -o "$1.wd" \
    --optimizer adam --schedule cosine --alpha-start 0.0005 --alpha-low 0.000005 --epochs 4 \
    --batch 256 --equity-weight 1 --seed 1 -q "${th[@]}"
}
fine_tune tw wlab.db
fine_tune tg ../gnubg-games/contact.db
bench_contact "$gnubg" wide1.wd tw.wd tg.wd
for w in tw.wd tg.wd; do
  for seed in 17001 17003; do
    "$T" play --weights "$w" --vs "$gnubg" --games 100000 --seed "$seed" "${th[@]}"
  done
done
md5sum wlab.db tw.wd tg.wd
