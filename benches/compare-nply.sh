#!/usr/bin/env bash
# Side-by-side benchmark of n-ply evaluation: gnubg 1.07's Python
# `evaluate` (cubeless, deterministic, no noise) and `trainer eval`, same
# positions, same run. Each tool runs REPS times (default 3), alternating;
# medians are printed as a Markdown table, per class.
#
# gnubg: `gnubg -t -p SCRIPT`, one process, timed inside Python around the
# evaluation loop (its start-up, about 0.3 s, is left out) by wall clock
# and by the process's CPU time (all its threads). Its Python `evaluate`
# hands each position to a worker thread and waits for it in steps of
# about 10 ms, so its wall time holds waiting that is not computation: the
# per-core ratio uses gnubg's CPU time. bgkit: the whole `trainer eval`
# process (start-up included), its CPU time (user + system) with one
# thread, in gnubg's own arithmetic on this CPU (`--arithmetic native-rcp`)
# and in the default one (measured to the millisecond by the shell's
# `times`), and its wall time with every core.
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

. benches/common.sh

# The first N reference positions of each class (gnubg's 0-ply evaluations,
# nets/tests/fixtures/evals_public.tsv).
classes="CONTACT CRASHED RACE"
for c in $classes; do
  awk -F'\t' -v c="$c" -v n="$n" 'NR > 1 && $2 == c && k < n { print $1; k++ }' \
    nets/tests/fixtures/evals_public.tsv >"$dir/$c.txt"
done

gnubg_once() { # class → "wall cpu" seconds per position
  cat >"$dir/time.py" <<PY
import gnubg, time
ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
ec = {'cubeful': 0, 'plies': $plies, 'deterministic': 1, 'prune': $prune, 'noise': 0.0}
ids = [l.strip() for l in open('$dir/$1.txt')]
start, cpu = time.time(), time.process_time()
for pid in ids:
    gnubg.evaluate(gnubg.positionfromid(pid), ci, ec)
print('SECONDS', (time.time() - start) / len(ids), (time.process_time() - cpu) / len(ids))
PY
  HOME="$dir" "$gnubg" -t -q -r -p "$dir/time.py" 2>/dev/null | awk '/^SECONDS/ { print $2, $3 }'
}

ours_once() { # class threads arithmetic → "wall cpu" seconds per position
  local count start end cpu
  count=$(wc -l <"$dir/$1.txt")
  start=$(date +%s.%N)
  # The CPU time of the process to the millisecond: the shell's `times`
  # reports its children's user and system time (GNU time's %U and %S
  # print hundredths, 5 % of a 0.2 s run).
  cpu=$( {
    "$trainer" eval --plies "$plies" $prune_flag --threads "$2" --arithmetic "$3" <"$dir/$1.txt" >/dev/null
    times
  } | awk 'END { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += 60 * t[1] + t[2] } print s }')
  end=$(date +%s.%N)
  awk -v n="$count" -v s="$start" -v e="$end" -v c="$cpu" 'BEGIN { printf "%.9f %.9f\n", (e - s) / n, c / n }'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$plies-ply, prune=$prune, $n positions per class, $reps runs (medians), ms per position"
echo
echo "| class | gnubg 1.07 wall | gnubg 1.07 CPU | bgkit 1 thread CPU (native-rcp) | bgkit 1 thread CPU (default) | bgkit $(nproc) threads wall | speed-up per core (CPU) | speed-up, all cores (wall) |"
echo "|---|---|---|---|---|---|---|---|"
for c in $classes; do
  gw=""; gc=""; o1=""; od=""; oa=""
  for i in $(seq "$reps"); do
    read -r w u < <(gnubg_once "$c"); gw="$gw $w"; gc="$gc $u"
    read -r w u < <(ours_once "$c" 1 native-rcp); o1="$o1 $u"
    read -r w u < <(ours_once "$c" 1 gnubg-fastmath); od="$od $u"
    read -r w u < <(ours_once "$c" "$(nproc)" gnubg-fastmath); oa="$oa $w"
  done
  gwm=$(median_of $gw)
  gcm=$(median_of $gc)
  o1m=$(median_of $o1)
  odm=$(median_of $od)
  oam=$(median_of $oa)
  awk -v c="$c" -v gw="$gwm" -v gc="$gcm" -v a="$o1m" -v d="$odm" -v m="$oam" 'BEGIN {
    printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.1fx | %.1fx |\n", tolower(c), 1000 * gw, 1000 * gc, 1000 * a, 1000 * d, 1000 * m, gc / d, gw / m }'
done
