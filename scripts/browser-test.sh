#!/usr/bin/env bash
# The web page's browser tests (Tests/browser): headless Chromium driven by Selenium, against a
# whole house the tests start themselves (mosquitto on a free port, the simulator, homegate).
#
#   scripts/browser-test.sh [BIN_PATH] [pytest arguments…]
#
# BIN_PATH is the folder with the built homegate and homegate-simulator; pass
# "$(swift build --show-bin-path)". Default: $HOMEGATE_BIN_PATH, else .build/debug. This script
# does not build. Screenshots and the processes' logs land in .build/browser-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/bin-path.sh

# 1. Debian packages: the browser and its driver, the broker and its clients, venv support.
packages=(chromium chromium-driver mosquitto mosquitto-clients python3-venv)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 2. A virtual environment with the pinned Selenium and pytest, made once.
. scripts/python-venv.sh
venv=.build/browser-venv
python_venv "$venv" Tests/browser/requirements.txt

# 2b. aiohomekit for the HomeKit view's pairing test, which pairs as a real controller: the
# virtual environment of scripts/hap-test.sh and scripts/hap-bridge-test.sh, made once.
python_venv .build/hap-venv Tests/hap/requirements.txt

# 3. The tests (no __pycache__ or .pytest_cache left in the source tree).
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest Tests/browser --bin-path "$bin_path" -p no:cacheprovider "$@"
