#!/usr/bin/env bash
# wide2 (docs/research-log.md, "Round 8's positions and a 512-unit net"):
# wide1's recipe (a contact net of 512 hidden units from random weights;
# Adam, batch 256, cosine 0.005 -> 0.00005, 40 epochs, the equity term
# mu = 1) on round 8's training set (rounds 6-8's self-play positions,
# gnubg.wd's 2-ply labels) and the contact positions of gnubg.wd's games,
# put into wide1.wd in place of its contact net.
#
# Run in a directory `wide2` beside r8/ (plan r8.json run up to its
# "training set" stage: `trainer round r8/plan.json --stop-before "start
# weights"`) and gnubg-games/ (gnubg-games.sh and wide1.sh done), with
# `trainer` on PATH:
#   mkdir -p wide2 && cd wide2 && bash ../bgkit/nets/weights/plans/wide2.sh
# Each step is skipped when its output exists; the training resumes from
# its checkpoint after an interruption.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh" # T, th, train_512
games=../gnubg-games
[ -e ../r8/train.db ] || { echo "wide2.sh: run round 8 to its training set first (../r8/train.db)" >&2; exit 1; }
[ -e $games/contact.db.labelled ] && [ -e $games/wide1.wd ] ||
  { echo "wide2.sh: run gnubg-games.sh and wide1.sh in $games first" >&2; exit 1; }
[ -e train.db ] || "$T" db merge ../r8/train.db $games/contact.db -o train.db
train_512 train.db s512.wd
[ -e wide2.wd ] || "$T" weights splice --from s512.wd --net contact --into $games/wide1.wd -o wide2.wd
md5sum train.db s512.wd wide2.wd
