#!/usr/bin/env bash
# Each compose way of docs/install.md run natively from the same files (Tests/compose): the
# services of `docker-compose config` started as the Dockerfile and compose files say, then checked.
#
#   scripts/compose-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH holds homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug.
# This script does not build.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_path="${HOMEGATE_BIN_PATH:-.build/debug}"
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  bin_path="$1"
  shift
fi

. scripts/python-venv.sh
venv=.build/house-venv
python_venv "$venv" Tests/pyhouse/requirements.txt

export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest Tests/compose --bin-path "$bin_path" -p no:cacheprovider "$@"
