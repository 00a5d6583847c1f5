#!/usr/bin/env bash
# The HTTP API against its own contract, and the event stream as a WebSocket (Tests/contract):
# schemathesis (PyPI, in a venv made here) sends every route of web/openapi.yaml generated requests,
# good and bad, to homegate over the simulated house (Tests/pyhouse), and checks every answer.
#
#   scripts/api-contract.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH holds homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug.
# API_CONTRACT_EXAMPLES: generated examples per operation (default 30).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/bin-path.sh

. scripts/python-venv.sh
venv=.build/api-venv
python_venv "$venv" Tests/contract/requirements.txt

export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest Tests/contract --bin-path "$bin_path" -p no:cacheprovider -s "$@"
