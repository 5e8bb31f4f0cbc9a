#!/usr/bin/env bash
# Crashed net "crashed1" (docs/research-log.md, "A crashed net from
# crashed-only games"): nets/weights/candidates/round5.wd's crashed net fine-tuned on
# 2-ply labels of crashed positions alone, with no earlier round's
# databases needed.
#
#  1. crashed.db: the crashed positions of 100,000 self-play games of
#     nets/weights/candidates/round5.wd (5 % exploration, seed 1301);
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
# nets/weights/candidates/round5.wd and `trainer` on PATH (or TRAINER=path):
#   mkdir -p crashed1 && cd crashed1 && cp ../bgkit/nets/weights/candidates/round5.wd player.wd
#   bash ../bgkit/nets/weights/plans/crashed1.sh
# Each step is skipped when its output exists, so the script can be run
# again after an interruption. THREADS (default 2) sets the worker threads;
# the results do not depend on it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/class-sets.sh"
class_sets crashed 100000 1301 3000

if [ ! -e crashed1.wd ]; then
  resume=()
  [ -e crashed1.wd.ckpt ] && resume=(--resume)
  "$T" train --db crashed.db --class crashed --weights player.wd -o crashed1.wd \
    --optimizer adam --schedule cosine --batch 256 --alpha-start 0.001 --alpha-low 0.00001 \
    --epochs 20 --seed 1 -q "${th[@]}" "${resume[@]}"
fi
bench_sets crashed crashed1.wd
