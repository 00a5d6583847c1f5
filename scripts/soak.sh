#!/usr/bin/env bash
# The soak (docs/reliability.md): builds the release binaries and runs the house under load,
# printing RSS, CPU, file descriptors, database size and event rates each minute and the slope
# of RSS at the end. Usage: scripts/soak.sh [--minutes 30] [--devices 1000] [--rate 1000] [--keep]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product homegate --static-swift-stdlib >&2
swift build -c release --product homegate-simulator --static-swift-stdlib >&2
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in Tests/pyhouse
exec python3 scripts/soak.py --bin "$(swift build -c release --show-bin-path)" "$@"
