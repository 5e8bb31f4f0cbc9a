# Shared by race1.sh and crashed1.sh (sourced, not run): the positions of
# one class from self-play games of `player.wd`, two held-out sets of the
# same class from fresh games, their 2-ply labels, and the benches;
# gnubg-games.sh and teacher1.sh use its labelling (`label_2ply`),
# wide1.sh and wide2.sh its 512-unit contact net (`train_512`), teacher1.sh
# and rivals1.sh its contact benches on the four held-out sets
# (`bench_contact`).
# Sets T (the trainer: $TRAINER, else `trainer` on PATH), th (its
# --threads option: $THREADS, default 2) and gnubg (gnubg.wd).

T="${TRAINER:-trainer}"
th=(--threads "${THREADS:-2}")
gnubg=/usr/lib/gnubg/gnubg.wd

# class_sets CLASS GAMES SEED HELD_GAMES: CLASS.db from GAMES games (seed
# SEED, 5 % exploration), held1.db and held2.db from HELD_GAMES games each
# (seeds SEED + 10 and SEED + 20) less every position of CLASS.db (held2
# also less held1), all labelled by gnubg.wd at 2 plies with pruning. Each
# step is skipped when its output exists; a labelling resumes its journal.
class_sets() {
  local class=$1 games=$2 seed=$3 held_games=$4
  generate_class "$class" "$games" "$seed" "$class.db"
  generate_class "$class" "$held_games" $((seed + 10)) g1.db
  generate_class "$class" "$held_games" $((seed + 20)) g2.db
  [ -e held1.db ] || "$T" db merge g1.db --exclude "$class.db" -o held1.db
  [ -e held2.db ] || "$T" db merge g2.db --exclude "$class.db" --exclude held1.db -o held2.db
  label_2ply held1.db
  label_2ply held2.db
  label_2ply "$class.db"
}

generate_class() { # class games seed out
  [ -e "$4" ] || "$T" db generate --weights player.wd --games "$2" --threshold 0 --explore 0.05 \
    --classes "$1" --seed "$3" -o "$4" -q "${th[@]}"
}

# label_eval DB WEIGHTS OPTION...: DB labelled by `db label eval` with
# WEIGHTS and the OPTIONs, once (DB.labelled marks it done), resuming its
# journal after an interruption.
label_eval() {
  local db=$1 weights=$2
  shift 2
  [ -e "$db.labelled" ] && return
  local resume=()
  [ -e "$db.journal" ] && resume=(--resume)
  "$T" db label eval "$db" "$@" --weights "$weights" -q "${th[@]}" "${resume[@]}"
  touch "$db.labelled"
}

# label_2ply DB [WEIGHTS]: DB labelled at 2 plies with pruning by WEIGHTS
# (default gnubg.wd).
label_2ply() { label_eval "$1" "${2:-$gnubg}" --plies 2 --prune; }

# bench_sets CLASS WEIGHTS: the MD5 of WEIGHTS and the equity RMS of
# WEIGHTS, bgkit.wd (player.wd) and gnubg.wd on both held-out sets.
bench_sets() {
  local class=$1 weights=$2 set w
  md5sum "$weights"
  for set in held1 held2; do
    echo "## $class equity RMS on $set.db: $weights, bgkit.wd, gnubg.wd"
    for w in "$weights" player.wd "$gnubg"; do "$T" bench --db "$set.db" --weights "$w"; done
  done
}

# train_512 DB OUT: a contact net of 512 hidden units from random weights
# (new512.wd: `trainer new`, seed 3) trained on DB with round 7's recipe
# (Adam, batch 256, cosine 0.005 -> 0.00005, 40 epochs, the equity term
# mu = 1) as OUT, once, resuming its checkpoint after an interruption.
train_512() {
  [ -e new512.wd ] || "$T" new -o new512.wd --hidden 512 --beta-hidden 1 --seed 3
  [ -e "$2" ] && return
  local resume=()
  [ -e "$2.ckpt" ] && resume=(--resume)
  "$T" train --db "$1" --class contact --weights new512.wd -o "$2" \
    --epochs 40 --schedule cosine --alpha-start 0.005 --alpha-low 0.00005 --seed 1 \
    --optimizer adam --batch 256 --equity-weight 1 -q "${th[@]}" "${resume[@]}"
}

# bench_contact WEIGHTS...: each file's contact line of `trainer bench` on
# the four held-out sets (gnubg-sets/ and fair/ beside the directory).
bench_contact() {
  local w d
  for w in "$@"; do
    for d in ../gnubg-sets/gnubg1.db ../gnubg-sets/gnubg2.db ../fair/fair1.db ../fair/fair2.db; do
      echo "$w $d $("$T" bench --db "$d" --weights "$w" "${th[@]}" | grep contact)"
    done
  done
}
