#!/usr/bin/env bash
# Installs the Debian packages homegate builds, tests and runs with, if any are missing.
set -euo pipefail
# libssl-dev: OpenSSL's libcrypto for the Matter module's P-256 point arithmetic and AES-CCM.
# docker-compose only checks compose.yaml in the tests (no Docker engine is needed or used); curl reads the
# HTTP event stream in the tests.
packages=(libmosquitto-dev mosquitto mosquitto-clients openssl libsqlite3-dev pkg-config docker-compose python3-yaml curl libavahi-client-dev libqrencode-dev libssl-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
