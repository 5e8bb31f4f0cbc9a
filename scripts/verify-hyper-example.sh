#!/usr/bin/env bash
# Checks a 3-chequer Hypergammon database against the example in gnubg's
# manual: Position ID ADAAAQAkIAAAAA, player on roll (docs/makehyper.md).
#
#   static evaluation  0.456 0.244 0.014 0.318 0.019  (win, wg, wbg, lg, lbg)
#   cubeful equities   owned -0.0230, centred -0.2310,
#                      centred with Jacoby -0.2186, opponent owns -0.3548
#
# Every value must be within 5e-4 of the manual's (the probabilities are
# printed there with 3 decimals). Prints a table; exits 1 on a mismatch,
# 2 on bad usage or an unusable file.
#
# Usage: scripts/verify-hyper-example.sh [HYPER3.BD]
#   With a file: checks it (ours or gnubg's). Without: builds makehyper
#   (release) and generates the database first, which takes several minutes
#   and about 7.5 GB of memory, into $OUT (default $TMPDIR/bgkit-hyper3.bd,
#   kept for re-checks). An interrupted generation is resumed from its
#   checkpoint $OUT.tmp.
set -euo pipefail
if [ $# -gt 1 ]; then
  echo "usage: $0 [HYPER3.BD]" >&2
  exit 2
fi
# Paths are taken relative to the caller's directory.
file=$(realpath -m -- "${1:-${OUT:-${TMPDIR:-/tmp}/bgkit-hyper3.bd}}")
cd "$(dirname "$0")/.."
bin="${CARGO_TARGET_DIR:-$PWD/target}/release"
cargo build --release -q -p makehyper -p bearoff

if [ $# = 0 ]; then
  restart=()
  [ -f "$file.tmp" ] && restart=(-r "$file.tmp")
  echo "generating $file with makehyper -c 3 ${restart[*]} (several minutes, ~7.5 GB)"
  "$bin/makehyper" -c 3 -f "$file" "${restart[@]}"
fi

# The record: board[1] (on roll) has one chequer each on indices 14, 16, 23
# (one-sided index 3018), board[0] two on 12 and one on 22 (index 2831).
id=ADAAAQAkIAAAAA
n=3276
record=$((3018 * n + 2831))
size=$((40 + 28 * n * n))
[ -f "$file" ] || { echo "$file: no such file" >&2; exit 2; }
actual_size=$(stat -c %s "$file")
[ "$actual_size" = "$size" ] || { echo "$file: $actual_size bytes, a 3-chequer database has $size" >&2; exit 2; }
header=$(head -c 8 "$file")
[ "$header" = gnubg-H3 ] || { echo "$file: header '$header', expected gnubg-H3" >&2; exit 2; }

# Cross-check the Position ID decoding of `bearoff dump` against the
# indices used here.
dumped=$("$bin/bearoff" dump "$file" --id "$id" | awk '$1 == "Position" && $2 ~ /^[0-9]+$/ { print $2, $3 }')
[ "$dumped" = "3018 2831" ] || { echo "bearoff dump --id $id reads player/opponent '$dumped', expected 3018 2831" >&2; exit 2; }

# The record's 27 value bytes, decoded as gnubg reads them.
od -An -tu1 -v -j $((40 + 28 * record)) -N 27 "$file" | tr -s ' ' '\n' | grep -v '^$' |
  awk -v file="$file" -v id="$id" -v rec="$record" '
    { b[NR - 1] = $1 }
    END {
      split("win|win gammon|win backgammon|lose gammon|lose backgammon|equity, cube owned|equity, cube centred|equity, centred (Jacoby)|equity, opponent owns", name, "|")
      split("0.456 0.244 0.014 0.318 0.019 -0.0230 -0.2310 -0.2186 -0.3548", manual, " ")
      tol = 5e-4
      printf "%s, Position ID %s, record %d (player 3018, opponent 2831)\n\n", file, id, rec
      printf "| %-26s | %9s | %10s | %9s | %s |\n", "value", "manual", "database", "diff", "within 5e-4"
      printf "|%s|%s|%s|%s|%s|\n", "----------------------------", "-----------", "------------", "-----------", "-------------"
      bad = 0
      for (k = 0; k < 9; k++) {
        u = b[3 * k] + 256 * b[3 * k + 1] + 65536 * b[3 * k + 2]
        x = u / 16777215
        if (k >= 5) x = (x - 0.5) * 6
        v[k] = x
        d = x - manual[k + 1]
        ok = (d <= tol && -d <= tol)
        if (!ok) bad++
        printf "| %-26s | %9s | %10.6f | %+9.6f | %-11s |\n", name[k + 1], manual[k + 1], x, d, ok ? "yes" : "NO"
      }
      cubeless = 2 * v[0] - 1 + (v[1] - v[3]) + (v[2] - v[4])
      printf "\ncubeless equity %.4f (manual: -0.168); cube action, Jacoby: no double %.4f, double/take %.4f, double/pass +1.0000\n", cubeless, v[7], 2 * v[8]
      if (bad) { printf "\nMISMATCH: %d of 9 values differ from the manual by more than %g\n", bad, tol; exit 1 }
      printf "\nOK: all 9 values within %g of the manual\n", tol
    }'
