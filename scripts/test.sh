#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test against real mosquitto brokers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The web page's JSDoc types (tsc) and its pure helpers' unit tests (node --test): seconds, no build.
scripts/web-test.sh
swift build --build-tests
# The core's module stays free of the broker and the web server (Package.swift gives it neither; this
# catches an import that would build only because another target made the module).
if grep -rnE '^[[:space:]]*(@_exported |@testable |public |internal |package )*import (CMosquitto|Mosquitto|Hummingbird|NIO)' Sources/GatewayCore; then
  echo "test.sh: Sources/GatewayCore must import neither Mosquitto nor Hummingbird nor NIO" >&2
  exit 1
fi
# The container image, proved without a Docker engine (skip with HOMEGATE_SKIP_IMAGE_CHECK=1 while iterating).
[ "${HOMEGATE_SKIP_IMAGE_CHECK:-}" = 1 ] || scripts/check-image.sh
# Each compose variant of docs/install.md runs natively from the same files (about 30 s).
python3 scripts/compose-smoke.py "$(swift build --show-bin-path)"
# The docs' runnable examples against the demo house, and the reference pages against the program (about 30 s).
python3 scripts/doc-test.py "$(swift build --show-bin-path)"
# One test at a time: the suites start brokers, simulators and gateways, and on a 2-core machine
# in parallel they starve each other's timers (a gateway in one test would wait on another's stop).
swift test --skip-build --no-parallel "$@"
# The HTTP API against its OpenAPI document, with schemathesis (about 15 s).
scripts/api-contract.sh "$(swift build --show-bin-path)"
# The web page in headless Chromium, driven by Selenium (about 15 s; screenshots in .build/browser-artifacts/).
scripts/browser-test.sh "$(swift build --show-bin-path)"
# The HomeKit Accessory Protocol server with an independent controller, aiohomekit (release build:
# SRP is about 30 times slower in debug).
swift build -c release --product hap-demo
scripts/hap-test.sh .build/release
# DNS-SD advertisement through avahi between two network namespaces (needs root; skipped otherwise).
scripts/mdns-test.sh "$(swift build --show-bin-path)"
# The HomeKit bridge with an independent controller: aiohomekit pairs with homegate over loopback (about 30 s).
scripts/hap-bridge-test.sh "$(swift build --show-bin-path)"
# The Matter stack with the Matter SDK's own controller: PASE over ::1, then full commissioning,
# control, subscriptions, multi-admin and a restart between two network namespaces (about 20 s; docs/matter.md).
scripts/matter-test.sh "$(swift build --show-bin-path)"
