#!/usr/bin/env bash
# Contact positions from gnubg.wd's own self-play, labelled like the
# rounds' (docs/research-log.md, "Contact positions from gnubg.wd's
# games"): the rounds' positions all come from bgkit's nets' games, so a
# match against gnubg.wd meets, on gnubg.wd's turns, positions of a kind
# no round saw. 20,000 games (5 % exploration, seed 15401), contact
# positions only, less every position of rounds 6 and 7 and of the four
# held-out sets (fair1/2, gnubg1/2), so those stay held out; labelled by
# gnubg.wd at 2 plies with pruning.
#
# Run in a directory `gnubg-games` beside r6/, r7/, fair/ and gnubg-sets/,
# with `trainer` on PATH (or TRAINER set; THREADS, default 2):
#   mkdir -p gnubg-games && cd gnubg-games
#   bash ../bgkit/nets/weights/plans/gnubg-games.sh
# Each step is skipped when its output exists, and the labelling resumes
# from its journal, so the script can be run again after an interruption.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh" # T, th, gnubg, label_2ply
[ -e games.db ] || "$T" db generate --weights "$gnubg" --games 20000 --threshold 0 --explore 0.05 \
  --classes contact --seed 15401 -o games.db -q
[ -e contact.db ] || "$T" db merge games.db --exclude ../r6/train.db --exclude ../r6/held.db \
  --exclude ../r7/pooled.db --exclude ../fair/fair1.db --exclude ../fair/fair2.db \
  --exclude ../gnubg-sets/gnubg1.db --exclude ../gnubg-sets/gnubg2.db -o contact.db
label_2ply contact.db
