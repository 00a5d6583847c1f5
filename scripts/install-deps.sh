#!/usr/bin/env bash
# Installs the Debian packages homegate builds, tests and runs with, if any are missing.
set -euo pipefail
# libssl-dev: OpenSSL's libcrypto for the Matter module's P-256 point arithmetic and AES-CCM.
# docker-compose only checks compose.yaml in the tests (no Docker engine is needed or used); curl reads the
# HTTP event stream in the tests. mosquitto is the program the tests and scripts/run.sh start privately,
# each on a port of its own: the system broker Debian's package comes with is neither started nor enabled.
packages=(libmosquitto-dev mosquitto mosquitto-clients openssl libsqlite3-dev pkg-config docker-compose python3-yaml curl libavahi-client-dev libqrencode-dev libssl-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"

# Debian's mosquitto package starts a broker on port 1883 and enables it at boot: on the host of
# the user's own broker that is a second broker, or a port clash. During the install, policy-rc.d
# forbids every service start, stop and restart (status 101), so a broker already running stays as
# it was; the one this installs is then disabled. The host's own policy-rc.d (Docker images ship
# one) is put back afterwards.
policy=/usr/sbin/policy-rc.d
saved=""
if [ -e "$policy" ]; then saved=$($sudo mktemp) && $sudo cp -p "$policy" "$saved"; fi
put_back_policy() { if [ -n "$saved" ]; then $sudo mv -f "$saved" "$policy"; else $sudo rm -f "$policy"; fi; }
trap put_back_policy EXIT
printf '#!/bin/sh\n# scripts/install-deps.sh of homegate: no service starts while it installs packages.\nexit 101\n' | $sudo tee "$policy" >/dev/null
$sudo chmod 755 "$policy"

$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null

if [[ " ${missing[*]} " == *" mosquitto "* ]]; then
  # Not enabled at boot either (systemd, or a System V init). Both work without a running init.
  if command -v deb-systemd-helper >/dev/null && [ -e /lib/systemd/system/mosquitto.service ]; then
    $sudo deb-systemd-helper disable mosquitto.service >/dev/null || echo "install-deps.sh: could not disable mosquitto.service; run: sudo systemctl disable mosquitto" >&2
  fi
  if command -v update-rc.d >/dev/null && [ -e /etc/init.d/mosquitto ]; then
    $sudo update-rc.d mosquitto disable >/dev/null 2>&1 || echo "install-deps.sh: could not disable /etc/init.d/mosquitto" >&2
  fi
  echo "installed mosquitto without starting or enabling its system broker (scripts/run.sh and the tests start their own)" >&2
fi
