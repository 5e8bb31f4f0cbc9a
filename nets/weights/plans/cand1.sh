#!/usr/bin/env bash
# cand1.wd (docs/research-log.md, "Round 6"): round 6's contact net,
# bgkit.wd's crashed net fine-tuned on round 6's positions, and race net
# R6 (Adam, batch 1,024, 0.01 → 0.0001 over 150 epochs from new256's race
# net). Deterministic: it gives nets/weights/candidates/cand1.wd,
# MD5 041560ce766c2d956d9d2ba6bfde8cfd.
#
# Run in a directory beside a finished round 6 (`r6/`, plan r6.json), with
# `bgkit.wd` a copy of nets/weights/candidates/round5.wd and `trainer` on PATH:
#   mkdir -p cand1 && cd cand1 && cp ../bgkit/nets/weights/candidates/round5.wd bgkit.wd
#   bash ../bgkit/nets/weights/plans/cand1.sh
# Each step is skipped when its output exists. About 8 minutes of two cores.
set -euo pipefail
T="${TRAINER:-trainer}"
[ -e c1-cs.wd ] || "$T" weights splice --from bgkit.wd --net crashed --into ../r6/round.wd -o c1-cs.wd
[ -e c1-crashed.wd ] || "$T" train --db ../r6/train.db --class crashed --weights c1-cs.wd -o c1-crashed.wd \
  --optimizer adam --schedule cosine --alpha-start 0.001 --alpha-low 0.00001 --epochs 20 --batch 256 --seed 1 --threads 2
[ -e race-start.wd ] || "$T" weights splice --from ../r6/new256.wd --net race --into c1-crashed.wd -o race-start.wd
[ -e cand1.wd ] || "$T" train --db ../r6/train.db --class race --weights race-start.wd -o cand1.wd \
  --optimizer adam --schedule cosine --batch 1024 --alpha-start 0.01 --alpha-low 0.0001 --epochs 150 --seed 1 --threads 2
md5sum cand1.wd
