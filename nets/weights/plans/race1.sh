#!/usr/bin/env bash
# Race net "race1" (docs/research-log.md, "A race net from race-only
# games"): a race net trained on 2-ply labels of race positions alone,
# with no earlier round's databases needed.
#
#  1. race.db: the race positions of 160,000 self-play games of
#     nets/weights/candidates/round5.wd (5 % exploration, seed 1201);
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
# nets/weights/candidates/round5.wd and `trainer` on PATH (or TRAINER=path):
#   mkdir -p race1 && cd race1 && cp ../bgkit/nets/weights/candidates/round5.wd player.wd
#   bash ../bgkit/nets/weights/plans/race1.sh
# Each step is skipped when its output exists, so the script can be run
# again after an interruption. THREADS (default 2) sets the worker threads;
# the results do not depend on it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh"
class_sets race 160000 1201 2000

[ -e new256.wd ] || "$T" new --hidden 256 --beta-hidden 1 --seed 3 -o new256.wd
[ -e race-start.wd ] || "$T" weights splice --from new256.wd --net race --into player.wd -o race-start.wd
if [ ! -e race1.wd ]; then
  resume=()
  [ -e race1.wd.ckpt ] && resume=(--resume)
  "$T" train --db race.db --class race --weights race-start.wd -o race1.wd \
    --optimizer adam --schedule cosine --batch 1024 --alpha-start 0.01 --alpha-low 0.0001 \
    --epochs 150 --seed 1 -q "${th[@]}" "${resume[@]}"
fi
bench_sets race race1.wd
