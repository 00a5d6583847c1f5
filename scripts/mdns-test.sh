#!/usr/bin/env bash
# DNS-SD advertisement through avahi, between two network namespaces (Tests/mdns/mdns_test.py says how).
# Needs root; skipped with the reason otherwise (HOMEGATE_MDNS_REQUIRED=1 makes a skip a failure).
#   scripts/mdns-test.sh [path to a build's bin directory]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-mdns-deps.sh
if [ $# -ge 1 ]; then
  bin=$1
else
  swift build --product homegate-dnssd-probe >&2
  bin=$(swift build --show-bin-path)
fi
# python-zeroconf, the library aiohomekit browses with, in a venv of the test's own.
venv=.build/mdns-venv
zeroconf=0.154.0
if ! "$venv/bin/python" -c "import zeroconf, sys; sys.exit(zeroconf.__version__ != '$zeroconf')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "zeroconf==$zeroconf"
fi
exec python3 Tests/mdns/mdns_test.py "$bin/homegate-dnssd-probe" "$(pwd)/$venv/bin/python"
