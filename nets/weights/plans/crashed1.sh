#!/usr/bin/env bash
# Crashed net "crashed1" (docs/research-log.md, "A crashed net from
# crashed-only games"): nets/weights/bgkit.wd's crashed net fine-tuned on
# 2-ply labels of crashed positions alone, with no earlier round's
# databases needed.
#
#  1. crashed.db: the crashed positions of 100,000 self-play games of
#     nets/weights/bgkit.wd (5 % exploration, seed 1301);
#  2. held1.db, held2.db: two held-out crashed sets, the crashed positions
#     of 3,000 fresh games each (seeds 1311, 1321), less every position of
#     crashed.db (held2 also less held1);
#  3. all three labelled by gnubg.wd at 2 plies with pruning (journaled:
#     an interrupted labelling resumes);
#  4. bgkit.wd's crashed net fine-tuned on crashed.db: Adam, batch 256,
#     cosine 0.001 → 0.00001 over 20 epochs (cand1.wd's recipe), written
#     as crashed1.wd, bgkit.wd with the new crashed net (checkpointed).
#
# Run in a directory of its own with `player.wd` a copy of
# nets/weights/bgkit.wd and `trainer` on PATH (or TRAINER=path):
#   mkdir -p crashed1 && cd crashed1 && cp ../bgkit/nets/weights/bgkit.wd player.wd
#   bash ../bgkit/nets/weights/plans/crashed1.sh
# Each step is skipped when its output exists, so the script can be run
# again after an interruption. THREADS (default 2) sets the worker threads;
# the results do not depend on it.
set -euo pipefail
T="${TRAINER:-trainer}"
th=(--threads "${THREADS:-2}")
gnubg=/usr/lib/gnubg/gnubg.wd

generate() { # games seed out
  [ -e "$3" ] || "$T" db generate --weights player.wd --games "$1" --threshold 0 --explore 0.05 \
    --classes crashed --seed "$2" -o "$3" -q "${th[@]}"
}
label() { # db
  [ -e "$1.labelled" ] && return
  local resume=()
  [ -e "$1.journal" ] && resume=(--resume)
  "$T" db label eval "$1" --plies 2 --prune --weights "$gnubg" -q "${th[@]}" "${resume[@]}"
  touch "$1.labelled"
}

generate 100000 1301 crashed.db
generate 3000 1311 g1.db
generate 3000 1321 g2.db
[ -e held1.db ] || "$T" db merge g1.db --exclude crashed.db -o held1.db
[ -e held2.db ] || "$T" db merge g2.db --exclude crashed.db --exclude held1.db -o held2.db
label held1.db
label held2.db
label crashed.db

if [ ! -e crashed1.wd ]; then
  resume=()
  [ -e crashed1.wd.ckpt ] && resume=(--resume)
  "$T" train --db crashed.db --class crashed --weights player.wd -o crashed1.wd \
    --optimizer adam --schedule cosine --batch 256 --alpha-start 0.001 --alpha-low 0.00001 \
    --epochs 20 --seed 1 -q "${th[@]}" "${resume[@]}"
fi
md5sum crashed1.wd
for set in held1 held2; do
  echo "## crashed equity RMS on $set.db: crashed1.wd, bgkit.wd, gnubg.wd"
  for w in crashed1.wd player.wd "$gnubg"; do "$T" bench --db "$set.db" --weights "$w"; done
done
