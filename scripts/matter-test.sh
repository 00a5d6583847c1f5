#!/usr/bin/env bash
# The Matter stack's tests with the Matter SDK's own controller (Tests/matter): the Python controller
# of connectedhomeip, as Home Assistant's Matter server uses it, establishes PASE with matter-demo on
# ::1, and between two network namespaces (avahi in the device's) commissions it in full, drives it,
# subscribes, adds a second fabric and reconnects after a restart; then commissions homegate's Matter
# bridge on the simulated house (Tests/pyhouse in the device's namespace) and drives it (needs root;
# see docs/matter.md).
#
#   scripts/matter-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH is the folder with a built matter-demo, homegate and homegate-simulator; default
# $MATTER_BIN_PATH, else .build/debug. Build them first: swift build (or each --product).
set -euo pipefail
cd "$(dirname "$0")/.."

bin_path="${MATTER_BIN_PATH:-.build/debug}"
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
  bin_path="$1"
  shift
fi
for program in matter-demo homegate homegate-simulator; do
  if [ ! -x "$bin_path/$program" ]; then
    echo "matter-test.sh: $bin_path/$program is missing; build it first (swift build --product $program)" >&2
    exit 2
  fi
done

sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
# The controller's minimal mDNS lists interfaces over netlink: without libnl-route its import fails.
if ! dpkg-query -W -f='${Status}' libnl-route-3-200 2>/dev/null | grep -q "install ok installed"; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libnl-route-3-200 >/dev/null
fi
# avahi-daemon, dbus and iproute2 for the namespace tests (matter-demo advertises through avahi).
scripts/install-mdns-deps.sh
# It hard-codes /data/chip_{factory,config,counters}.ini.
[ -d /data ] || $sudo mkdir -p /data

# A Python 3.11 virtual environment with the pinned controller (an abi3 wheel built for 3.11), made once.
venv=.build/matter-venv
if [ ! -x "$venv/bin/python" ]; then
  python3.11 -m venv "$venv"
fi
if ! cmp -s Tests/matter/requirements.txt "$venv/.requirements"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r Tests/matter/requirements.txt
  cp Tests/matter/requirements.txt "$venv/.requirements"
fi

# The tests (no __pycache__ or .pytest_cache left in the source tree); -s shows the timings.
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest Tests/matter --bin-path "$bin_path" -p no:cacheprovider -s "$@"
