#!/usr/bin/env bash
# Runs one of the pytest suites that need only pytest and the shared house (Tests/pyhouse) in
# .build/house-venv: scripts/compose-test.sh and scripts/doc-test.sh call it with their folder.
#
#   scripts/house-suite.sh SUITE_FOLDER [BIN_PATH] [pytest arguments…]
#
# BIN_PATH holds homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug.
# This script does not build.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=$1
shift
. scripts/bin-path.sh

. scripts/python-venv.sh
venv=.build/house-venv
python_venv "$venv" Tests/pyhouse/requirements.txt

export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest "$suite" --bin-path "$bin_path" -p no:cacheprovider "$@"
