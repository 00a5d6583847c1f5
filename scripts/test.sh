#!/usr/bin/env bash
# The test command: every check of homegate, in named stages, against real mosquitto brokers.
#
#   scripts/test.sh                         every stage, in the order below (what CI runs)
#   scripts/test.sh web swift browser       those stages, in the order below
#   scripts/test.sh swift -- --filter X     arguments after -- go to `swift test`
#   scripts/test.sh --list                  the stages and what each checks
#
# A stage that needs the debug build runs the build stage first, once. scripts/install-deps.sh
# installs what the build needs; each stage's own script installs what it alone needs.
set -euo pipefail
cd "$(dirname "$0")/.."

stage_web() { # the web page's JSDoc types (tsc) and its pure helpers' unit tests (node --test): seconds, no build
  scripts/web-test.sh
}

stage_build() { # swift build --build-tests, each module importing only what Package.swift gives it; GatewayCore neither Mosquitto nor Hummingbird nor NIO
  # A module imports only its declared dependencies: the front ends see GatewayCore, never Gateway or Mosquitto.
  swift build --build-tests --explicit-target-dependency-import-check error
  bin_path=$(swift build --show-bin-path)
  # Package.swift gives the core neither; this catches an import that would build only because another target made the module.
  if grep -rnE '^[[:space:]]*(@_exported |@testable |public |internal |package )*import (CMosquitto|Mosquitto|Hummingbird|NIO)' Sources/GatewayCore; then
    echo "test.sh: Sources/GatewayCore must import neither Mosquitto nor Hummingbird nor NIO" >&2
    return 1
  fi
  # The bridges are peers over the core's surface; the protocol stacks know nothing of homegate.
  if grep -rnE '^[[:space:]]*(@_exported |@testable |public |internal |package )*import (Gateway|CMosquitto|Mosquitto|Persistence)$' Sources/HAPBridge Sources/HTTPAPI Sources/MatterBridge \
    || grep -rnE '^[[:space:]]*(@_exported |@testable |public |internal |package )*import (Gateway|GatewayCore|HomeModel|Mosquitto)$' Sources/HAP Sources/Matter; then
    echo "test.sh: the bridges import GatewayCore, never Gateway or Mosquitto; HAP and Matter no homegate module" >&2
    return 1
  fi
}

stage_image() { # the container image, proved without a Docker engine (HOMEGATE_SKIP_IMAGE_CHECK=1 skips it)
  [ "${HOMEGATE_SKIP_IMAGE_CHECK:-}" = 1 ] || scripts/check-image.sh
}

stage_compose() { # each compose variant of docs/install.md, run natively from the same files
  scripts/compose-test.sh "$bin_path"
}

stage_doc() { # the docs' runnable examples against the demo house, and the reference pages against the program
  scripts/doc-test.sh "$bin_path"
}

stage_swift() { # swift test, one test at a time: on 2 cores, suites in parallel starve each other's timers
  swift test --skip-build --no-parallel "${swift_test_arguments[@]}"
}

stage_api_contract() { # the HTTP API against web/openapi.yaml with schemathesis, and the event stream as a WebSocket
  scripts/api-contract.sh "$bin_path"
}

stage_browser() { # the web page in headless Chromium, driven by Selenium (screenshots in .build/browser-artifacts/)
  scripts/browser-test.sh "$bin_path"
}

stage_hap() { # the HAP server with an independent controller, aiohomekit (release build: SRP is far slower in debug)
  swift build -c release --product hap-demo
  scripts/hap-test.sh .build/release
}

stage_mdns() { # DNS-SD advertisement through avahi between two network namespaces (needs root; skipped otherwise)
  scripts/mdns-test.sh "$bin_path"
}

stage_hap_bridge() { # the HomeKit bridge of real homegate with aiohomekit over loopback, then found by DNS-SD
  scripts/hap-bridge-test.sh "$bin_path"
}

stage_matter() { # the Matter stack with the Matter SDK's own controller: PASE over ::1, then commissioning, control, subscriptions, multi-admin and a restart between two namespaces; homegate's Matter bridge on the simulated house (docs/matter.md)
  scripts/matter-test.sh "$bin_path"
}

stages=(web build image compose doc swift api-contract browser hap mdns hap-bridge matter)
# These run the build stage first, once, and find the binaries in $bin_path.
on_the_build=(compose doc swift api-contract browser mdns hap-bridge matter)
bin_path=""

timings=()
run_stage() {
  local name=$1 started=$SECONDS
  echo "== test.sh: $name" >&2
  "stage_${name//-/_}"
  timings+=("$name $((SECONDS - started)) s")
}

list() {
  for name in "${stages[@]}"; do
    printf '%-12s %s\n' "$name" "$(grep -m1 "^stage_${name//-/_}()" "$0" | sed 's/^[^#]*# //')"
  done
}

selected=()
swift_test_arguments=()
while [ $# -gt 0 ]; do
  case $1 in
    --list) list; exit 0 ;;
    --) shift; swift_test_arguments=("$@"); break ;;
    *)
      if [[ " ${stages[*]} " != *" $1 "* ]]; then
        echo "test.sh: no stage '$1'; the stages are: ${stages[*]} (arguments for swift test go after --)" >&2
        exit 2
      fi
      selected+=("$1") ;;
  esac
  shift
done
[ ${#selected[@]} -gt 0 ] || selected=("${stages[@]}")

trap '[ ${#timings[@]} -eq 0 ] || echo "test.sh: $(IFS=,; echo "${timings[*]}" | sed "s/,/, /g")" >&2' EXIT
scripts/install-deps.sh
for name in "${stages[@]}"; do
  [[ " ${selected[*]} " == *" $name "* ]] || continue
  if [ -z "$bin_path" ] && [[ " build ${on_the_build[*]} " == *" $name "* ]]; then
    run_stage build
  fi
  [ "$name" = build ] || run_stage "$name"
done
