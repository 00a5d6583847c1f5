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

if ! python3 -m venv --help >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
fi
venv=.build/hap-bench-venv
requirements=scripts/hap-bench-requirements.txt
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
stamp="$venv/.requirements"
if ! cmp -s "$requirements" "$stamp"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi

export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" scripts/hap-bench.py "$@"
