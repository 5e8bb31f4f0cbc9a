#!/usr/bin/env bash
# Race net "race1" (docs/research-log.md, "A race net from race-only
# games"): a race net trained on 2-ply labels of race positions alone,
# with no earlier round's databases needed.
#
#  1. race.db: the race positions of 160,000 self-play games of
#     nets/weights/bgkit.wd (5 % exploration, seed 1201);
#  2. held1.db, held2.db: two held-out race sets, the race positions of
#     2,000 fresh games each (seeds 1211, 1221), less every position of
#     race.db (held2 also less held1);
#  3. all three labelled by gnubg.wd at 2 plies with pruning (journaled:
#     an interrupted labelling resumes);
#  4. the race net: 256 hidden units from random weights (`new --hidden
#     256 --beta-hidden 1 --seed 3`), Adam, batch 1,024, cosine 0.01 →
#     0.0001 over 150 epochs (race net R7's settings), inside bgkit.wd:
#     race1.wd is bgkit.wd with the new race net (checkpointed: resumes).
#
# Run in a directory of its own with `player.wd` a copy of
# nets/weights/bgkit.wd and `trainer` on PATH (or TRAINER=path):
#   mkdir -p race1 && cd race1 && cp ../bgkit/nets/weights/bgkit.wd player.wd
#   bash ../bgkit/nets/weights/plans/race1.sh
# Each step is skipped when its output exists, so the script can be run
# again after an interruption. THREADS (default 2) sets the worker threads;
# the results do not depend on it.
set -euo pipefail
T="${TRAINER:-trainer}"
th=(--threads "${THREADS:-2}")
gnubg=/usr/lib/gnubg/gnubg.wd

generate() { # games seed out
  [ -e "$3" ] || "$T" db generate --weights player.wd --games "$1" --threshold 0 --explore 0.05 \
    --classes race --seed "$2" -o "$3" -q "${th[@]}"
}
label() { # db
  [ -e "$1.labelled" ] && return
  local resume=()
  [ -e "$1.journal" ] && resume=(--resume)
  "$T" db label eval "$1" --plies 2 --prune --weights "$gnubg" -q "${th[@]}" "${resume[@]}"
  touch "$1.labelled"
}

generate 160000 1201 race.db
generate 2000 1211 g1.db
generate 2000 1221 g2.db
[ -e held1.db ] || "$T" db merge g1.db --exclude race.db -o held1.db
[ -e held2.db ] || "$T" db merge g2.db --exclude race.db --exclude held1.db -o held2.db
label held1.db
label held2.db
label race.db

[ -e new256.wd ] || "$T" new --hidden 256 --beta-hidden 1 --seed 3 -o new256.wd
[ -e race-start.wd ] || "$T" weights splice --from new256.wd --net race --into player.wd -o race-start.wd
if [ ! -e race1.wd ]; then
  resume=()
  [ -e race1.wd.ckpt ] && resume=(--resume)
  "$T" train --db race.db --class race --weights race-start.wd -o race1.wd \
    --optimizer adam --schedule cosine --batch 1024 --alpha-start 0.01 --alpha-low 0.0001 \
    --epochs 150 --seed 1 -q "${th[@]}" "${resume[@]}"
fi
md5sum race1.wd
for set in held1 held2; do
  echo "## race equity RMS on $set.db: race1.wd, bgkit.wd, gnubg.wd"
  for w in race1.wd player.wd "$gnubg"; do "$T" bench --db "$set.db" --weights "$w"; done
done
