#!/usr/bin/env bash
# Side-by-side benchmark of n-ply evaluation: gnubg 1.07's Python
# `evaluate` (cubeless, deterministic, no noise) and `trainer eval`, same
# positions, same run. Each tool runs REPS times (default 3), alternating;
# medians are printed as a Markdown table, per class.
#
# gnubg: `gnubg -t -p SCRIPT`, one process, timed inside Python around the
# evaluation loop (its start-up, about 0.3 s, is left out; its Python
# `evaluate` waits on its worker thread in steps of about 10 ms, which is
# part of what a user of it waits). bgkit: the whole `trainer eval` process
# (start-up included), with one thread and with every core, in gnubg's own
# arithmetic on this CPU (`--arithmetic native-rcp`) and in the default
# one.
#
# Usage: benches/compare-nply.sh          (needs /usr/games/gnubg)
#        REPS=5 N=200 PLIES=2 PRUNE=1 benches/compare-nply.sh
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
n="${N:-200}"
plies="${PLIES:-2}"
prune="${PRUNE:-1}"
gnubg=/usr/games/gnubg
[ -x "$gnubg" ] || { echo "gnubg not found: apt-get install -y gnubg" >&2; exit 1; }
cargo build --release -q -p trainer
trainer="${CARGO_TARGET_DIR:-$PWD/target}/release/trainer"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
prune_flag=""
[ "$prune" = 1 ] && prune_flag="--prune"

now() { date +%s.%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# The first N reference positions of each class (gnubg's 0-ply evaluations,
# nets/tests/fixtures/evals_public.tsv).
classes="CONTACT CRASHED RACE"
for c in $classes; do
  awk -F'\t' -v c="$c" -v n="$n" 'NR > 1 && $2 == c && k < n { print $1; k++ }' \
    nets/tests/fixtures/evals_public.tsv >"$dir/$c.txt"
done

gnubg_once() { # class → seconds per position
  cat >"$dir/time.py" <<PY
import gnubg, time
ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
ec = {'cubeful': 0, 'plies': $plies, 'deterministic': 1, 'prune': $prune, 'noise': 0.0}
ids = [l.strip() for l in open('$dir/$1.txt')]
start = time.time()
for pid in ids:
    gnubg.evaluate(gnubg.positionfromid(pid), ci, ec)
print('SECONDS', (time.time() - start) / len(ids))
PY
  HOME="$dir" "$gnubg" -t -q -r -p "$dir/time.py" 2>/dev/null | awk '/^SECONDS/ { print $2 }'
}

ours_once() { # class threads arithmetic → seconds per position
  local start end count
  count=$(wc -l <"$dir/$1.txt")
  start=$(now)
  "$trainer" eval --plies "$plies" $prune_flag --threads "$2" --arithmetic "$3" <"$dir/$1.txt" >/dev/null
  end=$(now)
  echo "($end - $start) / $count" | bc -l
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$plies-ply, prune=$prune, $n positions per class, $reps runs (medians), ms per position"
echo
echo "| class | gnubg 1.07 Python evaluate | bgkit 1 thread (native-rcp) | bgkit 1 thread (default) | bgkit $(nproc) threads (default) | speed-up per core | speed-up, all cores |"
echo "|---|---|---|---|---|---|---|"
for c in $classes; do
  g=""; o1=""; od=""; oa=""
  for i in $(seq "$reps"); do
    g="$g $(gnubg_once "$c")"
    o1="$o1 $(ours_once "$c" 1 native-rcp)"
    od="$od $(ours_once "$c" 1 gnubg-fastmath)"
    oa="$oa $(ours_once "$c" "$(nproc)" gnubg-fastmath)"
  done
  gm=$(echo $g | tr ' ' '\n' | median)
  o1m=$(echo $o1 | tr ' ' '\n' | median)
  odm=$(echo $od | tr ' ' '\n' | median)
  oam=$(echo $oa | tr ' ' '\n' | median)
  awk -v c="$c" -v g="$gm" -v a="$o1m" -v d="$odm" -v m="$oam" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.2f | %.2f | %.1fx | %.1fx |\n", tolower(c), 1000 * g, 1000 * a, 1000 * d, 1000 * m, g / d, g / m }'
done
