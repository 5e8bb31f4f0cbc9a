#!/usr/bin/env bash
# Runs the whole bgkit test suite on a fresh Debian machine.
# Installs what the tests need (gnubg 1.07 for differential tests) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/games/makebearoff ] || [ ! -e /usr/lib/gnubg/gnubg.wd ]; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq gnubg >/dev/null
fi

cargo test --workspace --locked
