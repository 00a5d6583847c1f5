#!/usr/bin/env bash
# The Matter bridge benchmark (scripts/matter-bench.py; docs/performance.md, "The Matter bridge"):
# the Matter SDK's own Python controller, aiohomekit and asyncio MQTT clients in one network
# namespace, homegate with both bridges, Mosquitto, the simulator and an echo floor in another.
#
#   scripts/matter-bench.sh [--build] [--runs 2] [--bin-path .build/release] [matter-bench.py options…]
#
# --build first builds the three release binaries as docs/performance.md does (swift build -c release
# --static-swift-stdlib --product homegate|homegate-simulator|homegate-bench; what is up to date is
# not built again); without it they must be there. Needs root (network namespaces, as
# scripts/matter-test.sh). The virtual environment .build/matter-bench-venv holds
# scripts/matter-bench-requirements.txt, made once. `--help` lists the benchmark's options.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--build" ]; then
  shift
  for product in homegate homegate-simulator homegate-bench; do
    swift build -c release --static-swift-stdlib --product "$product"
  done
fi

sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
# The controller's minimal mDNS lists interfaces over netlink: without libnl-route its import fails.
if ! dpkg-query -W -f='${Status}' libnl-route-3-200 2>/dev/null | grep -q "install ok installed"; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libnl-route-3-200 >/dev/null
fi
scripts/install-mdns-deps.sh  # avahi-daemon, dbus and iproute2 for namespace A
[ -d /data ] || $sudo mkdir -p /data  # the controller hard-codes /data/chip_{factory,config,counters}.ini

# Python 3.11 (the controller is an abi3 wheel built for 3.11), as scripts/matter-test.sh makes its venv.
. scripts/python-venv.sh
venv=.build/matter-bench-venv
[ -x "$venv/bin/python" ] || python3.11 -m venv "$venv"
python_venv "$venv" scripts/matter-bench-requirements.txt

export PYTHONDONTWRITEBYTECODE=1
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=PYTHONDONTWRITEBYTECODE,HOMEGATE_BIN_PATH "$venv/bin/python" scripts/matter-bench.py "$@"
fi
exec "$venv/bin/python" scripts/matter-bench.py "$@"
