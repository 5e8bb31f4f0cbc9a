#!/usr/bin/env bash
# Runs bgkit's whole check suite on a fresh Debian machine: formatting,
# clippy, documentation, then every test. Installs what the tests need
# (gnubg 1.07 for the differential tests, DejaVu fonts for the charts,
# rustfmt and clippy) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=""
if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
if [ ! -x /usr/games/makebearoff ] || [ ! -e /usr/lib/gnubg/gnubg.wd ] ||
   [ ! -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq gnubg fonts-dejavu-core >/dev/null
fi
if command -v rustup >/dev/null 2>&1; then
  cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
  cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
fi

echo "== cargo fmt --all -- --check"
cargo fmt --all -- --check
echo "== cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== cargo doc --workspace --no-deps (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
echo "== nets builds without command-line dependencies"
if cargo tree -p nets -e normal --locked | grep -E "\b(clap|indicatif|ctrlc|fs4|anyhow|serde_json) v"; then
  echo "nets must not depend on the crates listed above" >&2
  exit 1
fi
echo "== cargo test --workspace"
cargo test --workspace --locked
