#!/usr/bin/env bash
# Runs the whole house on this machine: a private mosquitto on 127.0.0.1 (port 1883, or a free one
# if that is taken), the Zigbee2MQTT simulator with the devices in demo/devices.json (and the group
# of both desk lamps in demo/groups.json), and
# homegate with the demo house's mappings in demo/mappings/. Installs what is missing, builds in release mode, and stops
# everything on Ctrl-C.
set -euo pipefail
# `scripts/run.sh --devices FILE` serves a saved bridge/devices payload instead of the demo, with the
# plain mappings/ and a database of its own (`--devices corpus`: the corpus of real devices in
# Tests/MappingsTests/Fixtures/corpus, once it is there).
cd "$(dirname "$0")/.."
devices=demo
if [ "${1:-}" = "--devices" ]; then devices=${2:?--devices needs demo, corpus or a file}; fi
case "$devices" in
  demo) devices_file=demo/devices.json ;;
  corpus) devices_file=Tests/MappingsTests/Fixtures/corpus/devices.json ;;
  *) devices_file=$devices ;;
esac
[ -f "$devices_file" ] || { echo "run.sh: no devices file $devices_file" >&2; exit 64; }
scripts/install-deps.sh
swift build -c release --product homegate --static-swift-stdlib >&2
swift build -c release --product homegate-simulator --static-swift-stdlib >&2

port=${DEMO_PORT:-1883}
if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
fi
# The web page and HTTP API: 8380 (homegate's default), or a free port when that is taken (HOMEGATE_HTTP_LISTEN to choose).
if [ -z "${HOMEGATE_HTTP_LISTEN:-}" ]; then
  http_port=8380
  if (exec 3<>/dev/tcp/127.0.0.1/$http_port) 2>/dev/null; then
    http_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  fi
  export HOMEGATE_HTTP_LISTEN="127.0.0.1:$http_port"
fi
page="http://${HOMEGATE_HTTP_LISTEN/0.0.0.0/127.0.0.1}/"
run_dir=$(mktemp -d)
printf 'listener %s 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\nuser %s\n' "$port" "$(id -un)" > "$run_dir/mosquitto.conf"
mosquitto -c "$run_dir/mosquitto.conf" > "$run_dir/mosquitto.log" 2>&1 &
pids=($!)
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$run_dir"' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done

if [ "$devices" != demo ]; then
  .build/release/homegate-simulator --url "mqtt://127.0.0.1:$port" --devices "$devices_file" \
    --sensor-interval "${DEMO_SENSOR_INTERVAL:-30}" 2> "$run_dir/simulator.log" &
  pids+=($!)
  cat >&2 <<MSG

The home in a browser: $page (the HTTP API is under ${page}api/, docs/http-api.md)

mosquitto is on 127.0.0.1:$port with a simulated Zigbee2MQTT bridge serving $devices_file. Watch the house:
  mosquitto_sub -h 127.0.0.1 -p $port -t 'homegate/#' -v
What each device became, and what is left out:
  .build/release/homegate validate ${HOMEGATE_MAPPINGS:-mappings} --devices $devices_file --coverage

MSG
  export HOMEGATE_MQTT_URL="mqtt://127.0.0.1:$port"
  export HOMEGATE_MAPPINGS="${HOMEGATE_MAPPINGS:-mappings}"
  export HOMEGATE_DATABASE="${HOMEGATE_DATABASE:-data/devices.sqlite}"
  .build/release/homegate run &
  pids+=($!)
  wait "${pids[-1]}"
  exit
fi

.build/release/homegate-simulator --url "mqtt://127.0.0.1:$port" --devices demo/devices.json --groups demo/groups.json \
  --sensor-interval "${DEMO_SENSOR_INTERVAL:-5}" --still "${DEMO_STILL:-occupancy_sensor}" 2> "$run_dir/simulator.log" &
pids+=($!)

cat >&2 <<MSG

The home in a browser: $page (the HTTP API is under ${page}api/, docs/http-api.md)

mosquitto is on 127.0.0.1:$port with a simulated Zigbee2MQTT bridge. Watch the house:
  mosquitto_sub -h 127.0.0.1 -p $port -t 'homegate/#' -v
Watch the simulated bulb in another terminal, then set the desk lamp to 30 % and see it follow:
  mosquitto_sub -h 127.0.0.1 -p $port -t zigbee2mqtt/bulb
  mosquitto_pub -h 127.0.0.1 -p $port -t homegate/set/bulb/lightbulb/brightness -m 30
Make a scene and an automation (motion in the hallway turns the desk lamp on at 80 %); requests are
answered, so send them with mosquitto_rr:
  mosquitto_rr -h 127.0.0.1 -p $port -t homegate/request/action_set/add -e homegate/response/action_set/add -m '{"name":"Lamp On","actions":[{"characteristic":"bulb/lightbulb/on","value":true},{"characteristic":"bulb/lightbulb/brightness","value":80}]}'
  mosquitto_rr -h 127.0.0.1 -p $port -t homegate/request/trigger/add -e homegate/response/trigger/add -m '{"name":"Hallway motion","action_sets":["lamp_on"],"events":[{"characteristic":"occupancy_sensor/motion_sensor/motion_detected","value":true}]}'
The desk lamps' group keeps two Zigbee2MQTT scenes, Reading and Evening: each is an action set. Run one:
  mosquitto_rr -h 127.0.0.1 -p $port -t homegate/request/action_set/execute -e homegate/response/action_set/execute -m '{"action_set":"Evening"}'
The motion sensor only moves when you say so (DEMO_STILL=occupancy_sensor); make it see motion:
  mosquitto_pub -h 127.0.0.1 -p $port -t zigbee2mqtt/bridge/request/simulator/report -m '{"id":"occupancy_sensor","state":{"occupancy":true}}'
and no motion again (a "no motion for 10 minutes" trigger counts from here):
  mosquitto_pub -h 127.0.0.1 -p $port -t zigbee2mqtt/bridge/request/simulator/report -m '{"id":"occupancy_sensor","state":{"occupancy":false}}'
Edit ${HOMEGATE_MAPPINGS:-demo/mappings}/*.yaml while it runs: changes apply at once. The home is kept in ${HOMEGATE_DATABASE:-data/homegate.sqlite}.

MSG
export HOMEGATE_MQTT_URL="mqtt://127.0.0.1:$port"
export HOMEGATE_MAPPINGS="${HOMEGATE_MAPPINGS:-demo/mappings}"
export HOMEGATE_DATABASE="${HOMEGATE_DATABASE:-data/homegate.sqlite}"
.build/release/homegate run &
pids+=($!)
wait "${pids[-1]}"
