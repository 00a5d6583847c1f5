#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test against real mosquitto brokers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
# The container image, proved without a Docker engine (skip with HOMEGATE_SKIP_IMAGE_CHECK=1 while iterating).
[ "${HOMEGATE_SKIP_IMAGE_CHECK:-}" = 1 ] || scripts/check-image.sh
# compose.yaml and compose.existing-broker.yaml run natively from the same files (about 15 s).
python3 scripts/compose-smoke.py "$(swift build --show-bin-path)"
# One test at a time: the suites start brokers, simulators and gateways, and on a 2-core machine
# in parallel they starve each other's timers (a gateway in one test would wait on another's stop).
swift test --skip-build --no-parallel "$@"
# The HTTP API against its OpenAPI document, with schemathesis (about 15 s).
scripts/api-contract.sh "$(swift build --show-bin-path)"
# The web page in headless Chromium, driven by Selenium (about 15 s; screenshots in .build/browser-artifacts/).
scripts/browser-test.sh "$(swift build --show-bin-path)"
# The HomeKit bridge with an independent controller: aiohomekit pairs with homegate over loopback (about 30 s).
scripts/hap-bridge-test.sh "$(swift build --show-bin-path)"
