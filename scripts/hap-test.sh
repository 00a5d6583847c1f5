#!/usr/bin/env bash
# The HAP server's tests with an independent controller (Tests/hap): aiohomekit, the library Home
# Assistant uses, pairs with hap-demo on 127.0.0.1 and drives it, without mDNS.
#
#   scripts/hap-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH is the folder with a built hap-demo; default $HAP_BIN_PATH, else .build/release (SRP is
# far slower in a debug build). Build it first: swift build -c release --product hap-demo
set -euo pipefail
cd "$(dirname "$0")/.."

bin_path="${HAP_BIN_PATH:-.build/release}"
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  bin_path="$1"
  shift
fi
if [ ! -x "$bin_path/hap-demo" ]; then
  echo "hap-test.sh: $bin_path/hap-demo is missing; build it first (swift build -c release --product hap-demo)" >&2
  exit 2
fi

# A virtual environment with the pinned aiohomekit and pytest, made once.
. scripts/python-venv.sh
venv=.build/hap-venv
python_venv "$venv" Tests/hap/requirements.txt

# 3. The accessory's share of pair-setup, without the controller's.
"$bin_path/hap-demo" --bench-srp 5

# 4. The tests (no __pycache__ or .pytest_cache left in the source tree); -s shows the timings.
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest Tests/hap --bin-path "$bin_path" -p no:cacheprovider -s "$@"
