#!/usr/bin/env bash
# The HomeKit bridge with an independent controller (Tests/hapbridge): aiohomekit, the library Home
# Assistant uses, pairs with the real homegate (Mosquitto and the Zigbee2MQTT simulator on free
# loopback ports) and drives it, without mDNS; test_cli.py unpairs and resets the setup code with
# `homegate hap unpair` / `hap reset-code` (-k cli for those alone).
#
#   scripts/hap-bridge-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH holds homegate and homegate-simulator; default $HOMEGATE_BIN_PATH, else .build/debug
# (pair-setup takes about 3 s there, which the test allows). Then the bridge found by DNS-SD between
# two network namespaces (Tests/hapbridge/mdns_bridge_test.py): needs root, skipped with the reason
# otherwise (HOMEGATE_MDNS_REQUIRED=1 makes a skip a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/bin-path.sh

# The same virtual environment as scripts/hap-test.sh (pinned aiohomekit and pytest), made once.
. scripts/python-venv.sh
venv=.build/hap-venv
python_venv "$venv" Tests/hap/requirements.txt

export PYTHONDONTWRITEBYTECODE=1
"$venv/bin/python" -m pytest Tests/hapbridge/test_bridge.py Tests/hapbridge/test_cli.py Tests/hapbridge/test_port_conflict.py --bin-path "$bin_path" -p no:cacheprovider -s "$@"
scripts/install-mdns-deps.sh
python3 Tests/hapbridge/mdns_bridge_test.py "$bin_path" "$(pwd)/$venv/bin/python"
