#!/usr/bin/env bash
# ft1 (docs/research-log.md, "Fine-tuning bgkit.wd's contact net on new
# positions"): `bgkit.wd`'s contact net, trained on rounds 1–5's 3.3 million
# positions, trained further on half of round 6's new positions (every
# other one: `--shard 1/2`, 1.22 million, of which about 770,000 contact),
# labelled like the rounds' (gnubg.wd, 2 plies, pruning). Two learning
# rates; each net's errors on round 6's held-out set and a 100,000-game
# match against `bgkit.wd`.
#
# Run in a directory beside round 6 (`r6/`, plan r6.json, through its
# "label held" stage: new.db and held.db), with `bgkit.wd` a copy of
# nets/weights/candidates/round5.wd and `trainer` on PATH:
#   mkdir -p ft1 && cd ft1 && cp ../bgkit/nets/weights/candidates/round5.wd bgkit.wd
#   bash ../bgkit/nets/weights/plans/ft1.sh
# Each step is skipped when its output exists; the labelling resumes its
# journal. About 45 minutes of two cores for the labels, a few minutes for
# the rest.
set -euo pipefail
T="${TRAINER:-trainer}"
th=(--threads "${THREADS:-2}")
gnubg=/usr/lib/gnubg/gnubg.wd

if [ ! -e half.db.labelled ]; then
  [ -e half.db ] || { cp ../r6/new.db half.db.tmp && mv half.db.tmp half.db; }
  resume=()
  [ -e half.db.journal ] && resume=(--resume)
  "$T" db label eval half.db --plies 2 --prune --weights "$gnubg" --shard 1/2 -q "${th[@]}" "${resume[@]}"
  touch half.db.labelled
fi

# fine_tune NAME ALPHA_START ALPHA_LOW EPOCHS: Adam, cosine decay, batch
# 256, the equity term μ = 1, from bgkit.wd (its other nets kept).
fine_tune() {
  [ -e "$1.wd" ] || "$T" train --db half.db --class contact --weights bgkit.wd -o "$1.wd" \
    --optimizer adam --schedule cosine --alpha-start "$2" --alpha-low "$3" --epochs "$4" \
    --batch 256 --equity-weight 1 --seed 1 -q "${th[@]}"
}
fine_tune ft1a 0.0005 0.000005 4
fine_tune ft1b 0.002 0.00002 4

for w in bgkit.wd "$gnubg" ft1a.wd ft1b.wd; do
  echo "== $w"
  "$T" bench --db ../r6/held.db --weights "$w" "${th[@]}"
done
for w in ft1a.wd ft1b.wd; do
  "$T" play --weights "$w" --vs bgkit.wd --games 100000 --seed 14001 "${th[@]}"
done
md5sum ft1a.wd ft1b.wd
