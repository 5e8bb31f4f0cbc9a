#!/usr/bin/env bash
# Two held-out sets for judging the nets of rounds 7 and later
# (docs/research-log.md, "Two fair held-out sets"): fresh self-play games
# of nets/weights/candidates/round5.wd (5 % exploration), per set 1,000 games of every
# class, 1,500 of which the crashed positions are kept and 2,000 of which
# the race positions are kept; less every position of rounds 6 and 7
# (fair2 also less fair1); labelled by gnubg.wd at 2 plies with pruning.
#
# Run in a directory `fair` beside r6/ and r7/ (it needs their databases),
# with `player.wd` a copy of nets/weights/candidates/round5.wd and `trainer` on PATH:
#   mkdir -p fair && cd fair && cp ../bgkit/nets/weights/candidates/round5.wd player.wd
#   bash ../bgkit/nets/weights/plans/fair-sets.sh
# Each step is skipped when its output exists, and the labelling resumes
# from its journal, so the script can be run again after an interruption.
set -euo pipefail
T="${TRAINER:-trainer}"
for set in 1 2; do
  s=$((9900 + 10 * set))
  out=fair$set.db
  [ -e "$out.labelled" ] && continue
  [ -e g$set.db ] || "$T" db generate --weights player.wd --games 1000 --threshold 0 --explore 0.05 \
    --classes contact,crashed,race --seed $((s + 1)) -o g$set.db -q
  [ -e c$set.db ] || "$T" db generate --weights player.wd --games 1500 --threshold 0 --explore 0.05 \
    --classes crashed --seed $((s + 2)) -o c$set.db -q
  [ -e r$set.db ] || "$T" db generate --weights player.wd --games 2000 --threshold 0 --explore 0.05 \
    --classes race --seed $((s + 3)) -o r$set.db -q
  exclude=(--exclude ../r6/train.db --exclude ../r6/held.db --exclude ../r7/pooled.db)
  [ "$set" = 2 ] && exclude+=(--exclude fair1.db)
  [ -e "$out" ] || "$T" db merge g$set.db c$set.db r$set.db "${exclude[@]}" -o "$out"
  resume=()
  [ -e "$out.journal" ] && resume=(--resume)
  "$T" db label eval "$out" --plies 2 --prune --weights /usr/lib/gnubg/gnubg.wd -q "${resume[@]}"
  touch "$out.labelled"
done
