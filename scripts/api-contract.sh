#!/usr/bin/env bash
# The HTTP API against its own contract, and the event stream as a WebSocket: starts a private mosquitto, the simulated Zigbee2MQTT house
# and `homegate run` (with a token, on a free port), then lets schemathesis (PyPI, in a venv made
# here) send every route of web/openapi.yaml generated requests, good and bad, and check every answer:
# no server error, only declared status codes, content types and headers, bodies that match their
# schemas, bad input refused, undeclared methods refused, the token enforced.
#
#   scripts/api-contract.sh [BIN]     BIN: where homegate and homegate-simulator are (default: swift build's)
#
# Two of schemathesis's checks are left out, for reasons a static schema cannot help: whether a
# well-formed request is accepted depends on the live home (a value must fit its characteristic's
# format and range, a name must not be taken, a room must exist), and the fuzzer removes homes that
# later requests then name (so "created, then not found" is the home working as it should).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-$(swift build --show-bin-path)}
venv=.build/api-venv
if [ ! -x "$venv/bin/schemathesis" ] || ! "$venv/bin/pip" freeze 2>/dev/null | grep -qxF -f Tests/contract/requirements.txt; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r Tests/contract/requirements.txt
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
run_dir=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$run_dir"' EXIT
port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser %s\n' "$port" "$(id -un)" > "$run_dir/mosquitto.conf"
mosquitto -c "$run_dir/mosquitto.conf" > "$run_dir/mosquitto.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
"$bin/homegate-simulator" --url "mqtt://127.0.0.1:$port" --devices demo/devices.json --groups demo/groups.json \
  --sensor-interval 0 > "$run_dir/simulator.log" 2>&1 &
pids+=($!)
token=contract-$RANDOM$RANDOM
HOMEGATE_MQTT_URL="mqtt://127.0.0.1:$port" HOMEGATE_MAPPINGS=demo/mappings HOMEGATE_DATABASE="$run_dir/home.sqlite" \
  HOMEGATE_HTTP_LISTEN=127.0.0.1:0 HOMEGATE_HTTP_TOKEN="$token" HOMEGATE_HTTP_WEB_ROOT=web \
  "$bin/homegate" run > "$run_dir/homegate.log" 2>&1 &
pids+=($!)
url=""
for _ in $(seq 100); do
  url=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$run_dir/homegate.log" | sed 's/listening on //' || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "api-contract: homegate did not start listening:" >&2; cat "$run_dir/homegate.log" >&2; exit 1; }
# Wait until the house is there (the bridge's devices are accessories), so routes have something to find.
for _ in $(seq 100); do
  curl -sf -H "Authorization: Bearer $token" "$url/readyz" > /dev/null && break
  sleep 0.1
done
status=0
"$venv/bin/schemathesis" run web/openapi.yaml --url "$url" -H "Authorization: Bearer $token" \
  --exclude-path /api/events --exclude-checks positive_data_acceptance,ensure_resource_availability \
  --max-examples "${API_CONTRACT_EXAMPLES:-30}" --seed 1 --workers 1 --request-timeout 10 --no-color \
  > "$run_dir/schemathesis.out" 2>&1 || status=$?
if [ $status -ne 0 ] || ! kill -0 "${pids[2]}" 2>/dev/null; then
  cat "$run_dir/schemathesis.out"
  echo "--- homegate's log:" && tail -20 "$run_dir/homegate.log"
  exit 1
fi
sed -n '/SUMMARY/,$p' "$run_dir/schemathesis.out" | grep -E "Tested|generated|passed|Selected" || true
echo "api-contract: every route of web/openapi.yaml answered as the contract says"
# The stream as a WebSocket (schemathesis does not speak it).
"$venv/bin/python" Tests/contract/websocket_check.py "$url" "$token" || { tail -20 "$run_dir/homegate.log"; exit 1; }
