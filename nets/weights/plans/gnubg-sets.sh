#!/usr/bin/env bash
# Two held-out sets from gnubg.wd's games (docs/research-log.md, "Held-out
# sets from gnubg.wd's games"): the fair sets (fair-sets.sh) come from
# `bgkit.wd`'s self-play, which favours the nets trained on it; these come
# from gnubg.wd's own self-play (5 % exploration), which if anything
# favours gnubg.wd. Per set 1,000 games of every class, 1,500 of which the
# crashed positions are kept and 2,000 of which the race positions are
# kept (the fair sets' proportions), less every position of rounds 6 and 7
# (their new positions and held-out sets; gnubg2 also less gnubg1),
# labelled by gnubg.wd at 2 plies with pruning.
#
# Run in a directory `gnubg-sets` beside r6/ and r7/ (plans r6.json and
# r7.json through their "label held" stages) with `trainer` on PATH:
#   mkdir -p gnubg-sets && cd gnubg-sets
#   bash ../bgkit/nets/weights/plans/gnubg-sets.sh
# Each step is skipped when its output exists, and the labelling resumes
# from its journal. About 10 minutes of two cores.
set -euo pipefail
T="${TRAINER:-trainer}"
gnubg=/usr/lib/gnubg/gnubg.wd
for set in 1 2; do
  s=$((15100 + 10 * set))
  out=gnubg$set.db
  [ -e "$out.labelled" ] && continue
  [ -e g$set.db ] || "$T" db generate --weights "$gnubg" --games 1000 --threshold 0 --explore 0.05 \
    --classes contact,crashed,race --seed $((s + 1)) -o g$set.db -q
  [ -e c$set.db ] || "$T" db generate --weights "$gnubg" --games 1500 --threshold 0 --explore 0.05 \
    --classes crashed --seed $((s + 2)) -o c$set.db -q
  [ -e r$set.db ] || "$T" db generate --weights "$gnubg" --games 2000 --threshold 0 --explore 0.05 \
    --classes race --seed $((s + 3)) -o r$set.db -q
  exclude=(--exclude ../r6/new.db --exclude ../r6/held.db --exclude ../r7/pooled.db)
  [ "$set" = 2 ] && exclude+=(--exclude gnubg1.db)
  [ -e "$out" ] || "$T" db merge g$set.db c$set.db r$set.db "${exclude[@]}" -o "$out"
  resume=()
  [ -e "$out.journal" ] && resume=(--resume)
  "$T" db label eval "$out" --plies 2 --prune --weights "$gnubg" -q "${resume[@]}"
  touch "$out.labelled"
done
