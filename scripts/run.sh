#!/usr/bin/env bash
# Runs homegate against a private mosquitto on 127.0.0.1 (port 1883, or a free one if that is taken).
# Installs what is missing, builds in release mode, and stops everything on Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product homegate >&2

port=${HOMEGATE_DEMO_PORT:-1883}
if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
fi
run_dir=$(mktemp -d)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser %s\n' "$port" "$(id -un)" > "$run_dir/mosquitto.conf"
mosquitto -c "$run_dir/mosquitto.conf" > "$run_dir/mosquitto.log" 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null; wait 2>/dev/null; rm -rf "$run_dir"' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done

cat >&2 <<MSG
mosquitto is listening on 127.0.0.1:$port. Watch the gateway with:
  mosquitto_sub -h 127.0.0.1 -p $port -t 'homegate/#' -v
MSG
export HOMEGATE_MQTT_URL="mqtt://127.0.0.1:$port"
.build/release/homegate run ${HOMEGATE_CONFIG:+--config "$HOMEGATE_CONFIG"}
