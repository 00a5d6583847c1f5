#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test against real mosquitto brokers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
