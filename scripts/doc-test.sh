#!/usr/bin/env bash
# The docs' runnable examples against the demo house, and the reference pages against the
# program (Tests/docs; CONTRIBUTING.md, "The doc test").
#
#   scripts/doc-test.sh [BIN_PATH] [pytest arguments…]
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
exec "$venv/bin/python" -m pytest Tests/docs --bin-path "$bin_path" -p no:cacheprovider "$@"
