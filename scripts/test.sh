#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test against real mosquitto brokers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# The container image, proved without a Docker engine (skip with HOMEGATE_SKIP_IMAGE_CHECK=1 while iterating).
[ "${HOMEGATE_SKIP_IMAGE_CHECK:-}" = 1 ] || scripts/check-image.sh
swift test --skip-build "$@"
