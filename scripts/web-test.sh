#!/usr/bin/env bash
# The web page's own checks, in a few seconds and with no build: `tsc` checks every module's JSDoc
# types (tsconfig.json: web/ and Tests/web/), and node's test runner runs the unit tests of the
# pure helpers (Tests/web/*.test.js). Installs Debian's node-typescript when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for p in nodejs node-typescript; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Incremental: the second run reads .build/web/tsbuildinfo and checks only what changed.
tsc -p tsconfig.json
echo "web: types checked (tsc $(tsc --version | cut -d' ' -f2))"

# The whole report only when something failed; its summary otherwise.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! node --test --test-reporter=spec Tests/web/*.test.js >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
grep -E "^ℹ (tests|pass|fail)" "$log" | tr '\n' ' ' | sed 's/ℹ //g; s/^/web: unit tests: /; s/ $/\n/'
