#!/usr/bin/env bash
# The shipped nets/weights/bgkit.wd made again from the committed plans, end
# to end, in a directory of its own (its provenance record,
# nets/weights/bgkit.wd.json, lists the steps): round 6 and round 7
# (`trainer round` on r6.json and r7.json, played by round 5's file), the
# held-out sets the later steps leave out (fair-sets.sh, gnubg-sets.sh),
# the contact positions of gnubg.wd's games (gnubg-games.sh), the
# 512-unit contact net put into round 7's file (wide1.sh: wide1.wd, the
# file shipped before) and the same net trained with the moves wide1.wd
# ranks best added (rivals1.sh: rivals1.wd = bgkit.wd). After each step
# the files it made are compared with the MD5s the record gives, and the
# script stops at the first that differs, naming it.
#
# About 19 core-hours, most of it 2-ply labelling (docs: plans/README.md).
# Every step is skipped when done and every labelling resumes from its
# journal, so the script can be run again after an interruption or a kill.
#
# Usage: nets/weights/plans/reproduce.sh DIR
#   TRAINER=path/to/trainer   the trainer (default: `trainer` on PATH)
#   THREADS=N                 worker threads of every step (default 2;
#                             no result depends on it)
#   CHECK=1                   run nothing: compare what DIR holds so far
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
plans="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
weights="$(dirname "$plans")"
if [ -e "$1" ] && [ ! -d "$1" ]; then
  echo "reproduce.sh: error: $1 is not a directory" >&2
  exit 2
fi
mkdir -p "$1"
dir="$(cd "$1" && pwd)"
TRAINER="${TRAINER:-trainer}"
# The steps run in subdirectories: a relative path to the trainer is made absolute.
case $TRAINER in
  */*) TRAINER="$(cd "$(dirname "$TRAINER")" && pwd)/$(basename "$TRAINER")" ;;
esac
export TRAINER
export THREADS="${THREADS:-2}"
check_only="${CHECK:-0}"
if [ "$check_only" != 1 ] && ! command -v "$TRAINER" >/dev/null; then
  echo "reproduce.sh: error: no trainer: put it on PATH or set TRAINER" >&2
  exit 2
fi

# What each step writes and the MD5 the record (its "outputs") gives it.
expected() { # step → "PATH MD5" lines, PATH in DIR
  case $1 in
    r6) echo "r6/train.db 977001d3e0603f94b87ba3bf08b5eec2"
        echo "r6/round.wd 265d4d7d656af7d922558d1531f5039e" ;;
    r7) echo "r7/round.wd e533f69c792e95b02a7b24865930a8a0" ;;
    fair) echo "fair/fair1.db 96d1dd6aa84a6e9488b4485fe5918b2f"
          echo "fair/fair2.db 8170bf279a860f0d139208893fd22610" ;;
    gnubg-sets) ;;
    gnubg-games) echo "gnubg-games/contact.db f9fa3d9bbdc2690784a327518e5a7fe7" ;;
    wide1) echo "gnubg-games/train.db 7d304e61847e6b5186345e4ec56221b9"
           echo "gnubg-games/s512.wd a0fd20f9f62a675da3ddc555a8de8439"
           echo "gnubg-games/wide1.wd 8610c2b8aea2fe4df8930d63704318a5" ;;
    rivals1) echo "rivals1/rivals.db 1ca8bdba05e902f2d95c4ef353fe58e7"
             echo "rivals1/train.db 64ca9f183e218f12ef801d8ebd769bfd"
             echo "rivals1/s512.wd ccbe8860b66d8f86f4c8d7fd3bbe38fb"
             echo "rivals1/rivals1.wd 4f5434073b78da073ffbee30adf77f85" ;;
  esac
}
steps=(r6 r7 fair gnubg-sets gnubg-games wide1 rivals1)

# Compares step $1's files; returns 1 if one is missing, exits 1 if one differs.
check() {
  local path want got missing=0
  while read -r path want; do
    [ -n "$path" ] || continue
    if [ ! -e "$dir/$path" ]; then
      echo "$1: $path not made yet"
      missing=1
      continue
    fi
    got="$(md5sum <"$dir/$path" | cut -d' ' -f1)"
    if [ "$got" != "$want" ]; then
      echo "reproduce.sh: $1: $path has MD5 $got, the record gives $want" >&2
      exit 1
    fi
    echo "$1: $path $got as recorded"
  done < <(expected "$1")
  return $missing
}

round() { # r6 | r7: the round from its plan, played by round 5's file
  mkdir -p "$dir/$1"
  [ -e "$dir/$1/plan.json" ] || cp "$plans/$1.json" "$dir/$1/plan.json"
  [ -e "$dir/$1/player.wd" ] || cp "$weights/candidates/round5.wd" "$dir/$1/player.wd"
  "$TRAINER" round "$dir/$1/plan.json" --threads "$THREADS"
}

script() { # STEP SCRIPT: a plan script run in DIR/STEP
  mkdir -p "$dir/$1"
  (cd "$dir/$1" && bash "$plans/$2")
}

run() {
  case $1 in
    r6 | r7) round "$1" ;;
    fair)
      mkdir -p "$dir/fair"
      [ -e "$dir/fair/player.wd" ] || cp "$weights/candidates/round5.wd" "$dir/fair/player.wd"
      script fair fair-sets.sh ;;
    gnubg-sets) script gnubg-sets gnubg-sets.sh ;;
    gnubg-games) script gnubg-games gnubg-games.sh ;;
    wide1)
      [ -e "$dir/gnubg-games/r7.wd" ] || cp "$dir/r7/round.wd" "$dir/gnubg-games/r7.wd"
      script gnubg-games wide1.sh ;;
    rivals1)
      mkdir -p "$dir/rivals1"
      [ -e "$dir/rivals1/wide1.wd" ] || cp "$dir/gnubg-games/wide1.wd" "$dir/rivals1/wide1.wd"
      [ -e "$dir/rivals1/r7.wd" ] || cp "$dir/r7/round.wd" "$dir/rivals1/r7.wd"
      script rivals1 rivals1.sh ;;
  esac
}

for step in "${steps[@]}"; do
  if [ "$check_only" = 1 ]; then
    check "$step" || true
    continue
  fi
  echo "== $step"
  run "$step"
  check "$step" || { echo "reproduce.sh: $step: its outputs are missing after it ran" >&2; exit 1; }
done
[ "$check_only" = 1 ] || echo "reproduce.sh: every step gave the recorded bytes; $dir/rivals1/rivals1.wd is nets/weights/bgkit.wd"
