#!/usr/bin/env bash
# ft2 (docs/research-log.md, "Fine-tuning on all of round 6's new
# positions"): ft1 (ft1.sh) with both halves of round 6's new positions.
# The second half (`--shard 2/2`, 1,222,541 positions) is labelled like the
# first (gnubg.wd, 2 plies, pruning), the halves are merged (2,445,082
# positions, about 1.5 million contact), and `bgkit.wd`'s contact net is
# trained further on them with ft1b's settings for 4 and for 8 epochs. Each result also goes
# into rc1.wd (`bgkit.wd` with race1's race net and crashed1's crashed net)
# as a whole-file candidate.
#
# Run in a directory beside r6/ and ft1/ (ft1.sh's half.db labelled), with
# `bgkit.wd` a copy of nets/weights/candidates/round5.wd, `rc1.wd` a copy of
# nets/weights/candidates/rc1.wd and `trainer` on PATH:
#   mkdir -p ft2 && cd ft2 && cp ../bgkit/nets/weights/candidates/round5.wd bgkit.wd
#   cp ../bgkit/nets/weights/candidates/rc1.wd .
#   bash ../bgkit/nets/weights/plans/ft2.sh
# Each step is skipped when its output exists; the labelling resumes its
# journal. About 35 minutes of two cores for the labels, a few minutes
# for the rest.
set -euo pipefail
T="${TRAINER:-trainer}"
th=(--threads "${THREADS:-2}")
gnubg=/usr/lib/gnubg/gnubg.wd

if [ ! -e s2.db.labelled ]; then
  [ -e s2.db ] || { cp ../r6/new.db s2.db.tmp && mv s2.db.tmp s2.db; }
  resume=()
  [ -e s2.db.journal ] && resume=(--resume)
  "$T" db label eval s2.db --plies 2 --prune --weights "$gnubg" --shard 2/2 -q "${th[@]}" "${resume[@]}"
  touch s2.db.labelled
fi
[ -e full.db ] || "$T" db merge ../ft1/half.db s2.db -o full.db

# fine_tune NAME ALPHA_START ALPHA_LOW EPOCHS: as ft1.sh's, on full.db.
fine_tune() {
  [ -e "$1.wd" ] || "$T" train --db full.db --class contact --weights bgkit.wd -o "$1.wd" \
    --optimizer adam --schedule cosine --alpha-start "$2" --alpha-low "$3" --epochs "$4" \
    --batch 256 --equity-weight 1 --seed 1 -q "${th[@]}"
  [ -e "$1-rc.wd" ] || "$T" weights splice --from "$1.wd" --net contact --into rc1.wd -o "$1-rc.wd"
}
fine_tune ft2a 0.002 0.00002 4
fine_tune ft2b 0.002 0.00002 8

for w in bgkit.wd "$gnubg" ft2a.wd ft2b.wd; do
  echo "== $w"
  "$T" bench --db ../r6/held.db --weights "$w" "${th[@]}"
done
for w in ft2a.wd ft2b.wd; do
  "$T" play --weights "$w" --vs bgkit.wd --games 100000 --seed 15001 "${th[@]}"
done
for w in bgkit.wd ft2a.wd ft2b.wd ft2a-rc.wd ft2b-rc.wd; do
  "$T" play --weights "$w" --vs "$gnubg" --games 100000 --seed 15002 "${th[@]}"
done
md5sum ft2a.wd ft2b.wd ft2a-rc.wd ft2b-rc.wd
