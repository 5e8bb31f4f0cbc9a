#!/usr/bin/env bash
# Runs bgkit's whole check suite on a fresh Debian machine: formatting,
# clippy, documentation, then every test. Installs what the tests need
# (gnubg 1.07 for the differential tests, DejaVu fonts for the charts,
# NumPy for the weights interchange test, Open Sage for the engine duels,
# Slurm and munge for the test that runs a round on a one-node cluster it
# starts itself, rustfmt and clippy) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=""
if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
if [ ! -x /usr/games/makebearoff ] || [ ! -e /usr/lib/gnubg/gnubg.wd ] ||
   [ ! -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] ||
   ! /usr/bin/python3 -c 'import numpy' 2>/dev/null ||
   [ ! -x /usr/sbin/slurmctld ] || [ ! -x /usr/sbin/slurmd ] ||
   [ ! -x /usr/bin/sbatch ] || [ ! -x /usr/sbin/munged ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq gnubg fonts-dejavu-core python3-numpy slurm-wlm munge >/dev/null
fi
# Cargo's target directory must run programs (build scripts, tests, Open
# Sage's native module). Where the checkout is mounted noexec, build in a
# directory of the machine's temporary folder instead.
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
mkdir -p "$target_dir"
probe="$target_dir/.exec-probe"
cp /bin/true "$probe"
if ! "$probe" 2>/dev/null; then
  target_dir="${TMPDIR:-/tmp}/bgkit-target"
  echo "== $target_dir as cargo's target directory (the checkout cannot run programs)"
  mkdir -p "$target_dir"
fi
rm -f "$probe"
export CARGO_TARGET_DIR="$target_dir"
# Open Sage (PyPI `bgsage`, pinned) for the engine duel tests, in a virtual
# environment of its own in the target directory (python3-venv from Debian if
# the machine's Python lacks venv).
opensage_venv="$target_dir/engines-venv"
if ! "$opensage_venv/bin/python" -c 'import bgsage' 2>/dev/null; then
  rm -rf "$opensage_venv"
  if ! python3 -m venv "$opensage_venv" 2>/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    $sudo_cmd apt-get update -qq
    $sudo_cmd apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$opensage_venv"
  fi
  # pip through the venv's Python: its bin/pip script is not needed.
  "$opensage_venv/bin/python" -m pip install -q --disable-pip-version-check bgsage==2.0.20260907
  if ! err=$("$opensage_venv/bin/python" -c 'import bgsage' 2>&1); then
    echo "Open Sage installed in $opensage_venv but does not import: $(printf '%s\n' "$err" | tail -n 1)" >&2
    exit 1
  fi
fi
export BGKIT_OPENSAGE_PYTHON="$opensage_venv/bin/python"
if command -v rustup >/dev/null 2>&1; then
  cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
  cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
fi

# Each step's heading gives the seconds since the script started.
step() { echo "== [${SECONDS} s] $*"; }
step "cargo fmt --all -- --check"
cargo fmt --all -- --check
step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
step "cargo doc --workspace --no-deps (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
step "nets builds without command-line dependencies"
if cargo tree -p nets -e normal --locked | grep -E "\b(clap|indicatif|ctrlc|fs4|anyhow|serde_json) v"; then
  echo "nets must not depend on the crates listed above" >&2
  exit 1
fi
step "no test or script reads outside the repository"
if git grep -n -e '[.][.]/shared' -- ':!*.md'; then
  echo "tests and scripts must not read the shared reference folder beside the repository: a user's clone has none" >&2
  exit 1
fi
step "cargo test --workspace"
cargo test --workspace --locked --no-fail-fast
# The evaluator again with its vector code capped (BGKIT_SIMD, docs/nets.md),
# as on a CPU without AVX2 or without any SIMD path; then what this CPU
# could not check. The n-ply comparisons with gnubg (minutes each) run once,
# above: a search is the same code on every level, and the levels' bits are
# checked against each other and against gnubg at 0 and 1 ply here.
# The nets test binaries are the workspace build's (`cargo test -p nets`
# would build them again: one package alone unifies other features).
nets_tests=$(cargo test --workspace --locked --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, os, sys
root = os.path.realpath("nets") + os.sep
for line in sys.stdin:
    m = json.loads(line)
    src = m.get("target", {}).get("src_path", "")
    if m.get("reason") == "compiler-artifact" and m.get("executable") and src.startswith(root):
        print(m["executable"])')
[ -n "$nets_tests" ] || { echo "no nets test binaries found" >&2; exit 1; }
for level in sse2 portable; do
  step "the nets tests with BGKIT_SIMD=$level"
  for t in $nets_tests; do
    (cd nets && BGKIT_SIMD=$level "$t" -q \
      --skip installed_gnubg_at_2_plies --skip installed_gnubg_at_3_plies)
  done
done
step "vector levels"
for t in $nets_tests; do
  case $(basename "$t") in nets-*) (cd nets && "$t" cpu:: --nocapture 2>&1 | grep "vector level") ;; esac
done
step "all checks passed"
