#!/usr/bin/env bash
# Installs the Debian packages the DNS-SD advertiser builds with and its namespace test runs with, if any
# are missing. Kept apart from install-deps.sh until the lead decides which belong there:
#   build:    libavahi-client-dev (headers and the pkg-config file for the CAvahi system library)
#   run:      libavahi-client3 (pulled in by the -dev package; in the image, the runtime library alone),
#             and an avahi-daemon reachable over the system D-Bus where homegate runs
#   mdns test: avahi-daemon, dbus (dbus-daemon), iproute2 (ip netns, veth), util-linux (unshare),
#             avahi-utils (avahi-browse, for looking by hand when the test fails), python3-venv (the
#             zeroconf resolver's venv)
set -euo pipefail
packages=(libavahi-client-dev avahi-daemon avahi-utils dbus iproute2 util-linux python3-venv pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
# The avahi-daemon package's postinst would start the daemon where systemd runs; --no-install-recommends
# keeps libnss-mdns out (it would change the host's name resolution).
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
