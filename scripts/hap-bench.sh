#!/usr/bin/env bash
# The HomeKit bridge benchmark (scripts/hap-bench.py; docs/performance.md): aiohomekit controllers
# and asyncio MQTT clients against homegate, Mosquitto, the simulator and an echo floor on loopback.
#
#   scripts/hap-bench.sh [--runs 3] [--bin-path .build/release] [hap-bench.py options…]
#
# Build the three release binaries first (docs/performance.md). The virtual environment
# .build/hap-bench-venv holds scripts/hap-bench-requirements.txt, made once.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/python-venv.sh
venv=.build/hap-bench-venv
python_venv "$venv" scripts/hap-bench-requirements.txt

export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" scripts/hap-bench.py "$@"
