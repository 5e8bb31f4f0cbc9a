#!/usr/bin/env bash
# wide1 (docs/research-log.md, "A contact net of 512 hidden units"): a
# contact net of 512 hidden units trained from random weights with round
# 7's recipe (Adam, batch 256, cosine 0.005 -> 0.00005, 40 epochs, the
# equity term mu = 1) on round 7's training set and the contact positions
# of gnubg.wd's games (gnubg-games.sh), put into round 7's file
# (nets/weights/candidates/r7.wd) in place of its 256-unit contact net.
#
# Run in the directory `gnubg-games` after gnubg-games.sh, beside r7/
# (plan r7.json, run to its "training set" stage: train.db), with `r7.wd`
# a copy of nets/weights/candidates/r7.wd and `trainer` on PATH:
#   cd gnubg-games && cp ../bgkit/nets/weights/candidates/r7.wd .
#   bash ../bgkit/nets/weights/plans/wide1.sh
# Each step is skipped when its output exists; the training resumes from
# its checkpoint after an interruption. About 20 minutes of two cores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh" # T, th, train_512
[ -e contact.db.labelled ] || { echo "wide1.sh: run gnubg-games.sh first" >&2; exit 1; }
[ -e train.db ] || "$T" db merge ../r7/train.db contact.db -o train.db
train_512 train.db s512.wd
[ -e wide1.wd ] || "$T" weights splice --from s512.wd --net contact --into r7.wd -o wide1.wd
md5sum train.db s512.wd wide1.wd
