#!/usr/bin/env bash
# The Matter bridge benchmark (scripts/matter-bench.py; docs/performance.md, "The Matter bridge"):
# the Matter SDK's own Python controller, aiohomekit and asyncio MQTT clients in one network
# namespace, homegate with both bridges, Mosquitto, the simulator and an echo floor in another.
#
#   scripts/matter-bench.sh [--runs 2] [--bin-path .build/release] [matter-bench.py options…]
#
# Build the three release binaries first (docs/performance.md). Needs root (network namespaces, as
# scripts/matter-test.sh). The virtual environment .build/matter-bench-venv holds
# scripts/matter-bench-requirements.txt, made once.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
# The controller's minimal mDNS lists interfaces over netlink: without libnl-route its import fails.
if ! dpkg-query -W -f='${Status}' libnl-route-3-200 2>/dev/null | grep -q "install ok installed"; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libnl-route-3-200 >/dev/null
fi
scripts/install-mdns-deps.sh  # avahi-daemon, dbus and iproute2 for namespace A
[ -d /data ] || $sudo mkdir -p /data  # the controller hard-codes /data/chip_{factory,config,counters}.ini

. scripts/python-venv.sh
venv=.build/matter-bench-venv
python_venv "$venv" scripts/matter-bench-requirements.txt

export PYTHONDONTWRITEBYTECODE=1
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=PYTHONDONTWRITEBYTECODE,HOMEGATE_BIN_PATH "$venv/bin/python" scripts/matter-bench.py "$@"
fi
exec "$venv/bin/python" scripts/matter-bench.py "$@"
