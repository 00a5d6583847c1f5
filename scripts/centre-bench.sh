#!/usr/bin/env bash
# Issue 43's figures, before and after, in one session (docs/performance.md says what each measures):
#
#   scripts/centre-bench.sh --before DIR --after DIR [--rounds 2] [--bench after|own] [--out DIR]
#
# DIR is a checkout with its release binaries built (.build/release/homegate, homegate-bench,
# homegate-simulator; `swift build -c release --static-swift-stdlib --product X`). Prints one
# Markdown table: figure | before | after | after/before, each cell the median over the rounds (and
# the range). About 14 minutes with --rounds 2 on the 2-core machine; the logs stay in --out.
#
# Each round runs every timed figure for before, then for after (before, after, before, after, …),
# so whatever the machine does hits both. Every figure has its no-work reference measured in the
# same run, and the ratios to it are what compare on a loaded machine:
#   tail    homegate-bench tail --rates 0,2000 --seconds 15 --step-seconds 0 (400 devices, 300 triggers):
#           motion → trigger → action set → /set next to the echo floor, idle and at 2,000 readings/s;
#           p50/p99 as ratios to the floor's; ~40 s a run
#   rss     homegate-bench tail --devices 1000 --rates 0 --seconds 3 --step-seconds 0: RSS after the
#           run and the peak since start with 1,000 devices; ~15 s a run
#   stream  homegate-bench stream --clients 200 --seconds 8 (1,000 readings/s): the CPU 200 WebSocket
#           clients add to homegate, as a ratio to the no-work fan-out's CPU for the same clients; ~45 s
#   hap     scripts/hap-bench.sh --runs 1 (after's script), fewer probes than its default: HAP write →
#           /set and device change → HAP EVENT (isolated changes, and under the 2,000 messages/s), next
#           to homegate's MQTT paths and the broker-only echo; ~75 s a run
# then once per build (instructions do not depend on the load), before and after side by side:
#   callgrind  homegate-bench gateway --flood 500 --rate 50 --seconds 5 with homegate under
#           valgrind --tool=callgrind, minus the same with --seconds 25: the instructions of 1,000
#           readings (as docs/performance.md's "instructions per reading", with shorter runs); ~3 min
#
# --bench after (the default) drives both builds' homegate with after's homegate-bench, simulator and
# echo (HOMEGATE_BENCH_GATEWAY, as docs/performance.md does), so only homegate differs; should a run
# of before fail that way (say, a database it cannot read), it is run again with before's own tools
# and the table marks it. --bench own: each build with its own tools throughout.
#
# Every tool finds free loopback ports itself and ends what it started by PID; this script ends only
# the runs it started.
set -euo pipefail

before="" after="" rounds=2 bench=after out=""
while [ $# -gt 0 ]; do
  case $1 in
    --before) before=$(cd "$2" && pwd); shift 2 ;;
    --after) after=$(cd "$2" && pwd); shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;  # comma-separated figures (tail,rss,stream,hap,callgrind), for trying the script
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "centre-bench.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -n "$before" ] && [ -n "$after" ] || { echo "centre-bench.sh: --before DIR and --after DIR are needed (--help)" >&2; exit 2; }
case $bench in after|own) ;; *) echo "centre-bench.sh: --bench after|own" >&2; exit 2 ;; esac
only=${only:-tail,rss,stream,hap,callgrind}
for dir in "$before" "$after"; do
  for binary in homegate homegate-bench homegate-simulator; do
    [ -x "$dir/.build/release/$binary" ] || { echo "centre-bench.sh: $dir/.build/release/$binary is missing (swift build -c release --static-swift-stdlib --product $binary)" >&2; exit 1; }
  done
done
command -v mosquitto >/dev/null || { echo "centre-bench.sh: mosquitto is missing (scripts/install-deps.sh)" >&2; exit 1; }
out=${out:-$(mktemp -d /tmp/centre-bench.XXXXXX)}
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
echo "centre-bench: before $before ($(git -C "$before" rev-parse --short HEAD 2>/dev/null || echo '?')), after $after ($(git -C "$after" rev-parse --short HEAD 2>/dev/null || echo '?')); $rounds rounds; logs in $out"

# Each run is a process group of its own (setsid), so that a run cut short by its time limit or by
# INT/TERM is ended with everything it started, and nothing else.
running=()
stop_runs() {
  for pid in "${running[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${running[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap 'stop_runs; exit 130' INT TERM

# start LOG LIMIT COMMAND...: one run in the background, its output in LOG, ended after LIMIT seconds;
# its PID (and process group) is appended to running.
start() {
  local log=$1 limit=$2; shift 2
  { echo "# $*"; echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%H:%M:%S)"; } >"$log"
  setsid "$@" >>"$log" 2>&1 &
  local pid=$!
  running+=("$pid")
  (
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$limit" & sleeper=$!
    wait "$sleeper"
    kill -0 "$pid" && echo "# cut off after $limit s" >>"$log" && kill -TERM -- "-$pid"
  ) >/dev/null 2>&1 &
  watchdogs+=($!)
}
watchdogs=()
# finish: waits for the runs started, ends their watchdogs; fails if any run failed.
finish() {
  local status=0
  for pid in "${running[@]}"; do wait "$pid" || status=1; done
  for pid in "${watchdogs[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  # a run's leftovers (it was cut off or crashed before ending its children)
  for pid in "${running[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  running=() watchdogs=()
  return $status
}
run() { local log=$1 limit=$2; shift 2; start "$log" "$limit" "$@"; finish; }

# The tools a build is measured with: after's (with the build's homegate) or its own.
tools_of() { if [ "$bench" = after ]; then echo "$after"; else echo "$1"; fi; }

# A folder of the three binaries hap-bench.py takes (--bin-path): the build's homegate, the tools'.
bin_dir() {
  local name=$1 dir=$2 tools=$3
  mkdir -p "$out/bin-$name-$(basename "$tools")"
  ln -sf "$dir/.build/release/homegate" "$out/bin-$name-$(basename "$tools")/homegate"
  for binary in homegate-bench homegate-simulator; do ln -sf "$tools/.build/release/$binary" "$out/bin-$name-$(basename "$tools")/$binary"; done
  echo "$out/bin-$name-$(basename "$tools")"
}

# figure NAME BUILD DIR ROUND TOOLS: one run of one figure; the log is $out/NAME-BUILD-ROUND.log.
figure() {
  local name=$1 build=$2 dir=$3 round=$4 tools=$5
  local log="$out/$name-$build-$round.log"
  local env=(env "HOMEGATE_BENCH_GATEWAY=$dir/.build/release/homegate")
  case $name in
    tail) run "$log" 150 "${env[@]}" "$tools/.build/release/homegate-bench" tail --rates 0,2000 --seconds 15 --step-seconds 0 ;;
    rss) run "$log" 90 "${env[@]}" "$tools/.build/release/homegate-bench" tail --devices 1000 --rates 0 --seconds 3 --step-seconds 0 ;;
    stream) run "$log" 180 "${env[@]}" "$tools/.build/release/homegate-bench" stream --clients 200 --seconds 8 ;;
    hap) run "$log" 300 "$after/scripts/hap-bench.sh" --runs 1 --bin-path "$(bin_dir "$build" "$dir" "$tools")" \
      --writes 150 --events 40 --isolated 20 --bursts 3 --verifies 10 --window 6 ;;
  esac
}

# Runs a figure; if before fails with after's tools, once more with its own, marked in the log's name.
measure() {
  local name=$1 build=$2 dir=$3 round=$4
  local tools; tools=$(tools_of "$dir")
  echo "centre-bench: $name, $build, round $round ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
  if figure "$name" "$build" "$dir" "$round" "$tools"; then return 0; fi
  mv "$out/$name-$build-$round.log" "$out/$name-$build-$round.failed.log"
  if [ "$tools" != "$dir" ]; then
    echo "centre-bench: $name, $build failed with after's tools ($out/$name-$build-$round.failed.log); again with its own"
    touch "$out/$name-$build-$round.own-tools"
    figure "$name" "$build" "$dir" "$round" "$dir" && return 0
    mv "$out/$name-$build-$round.log" "$out/$name-$build-$round.failed-own.log"
  fi
  echo "centre-bench: $name, $build, round $round failed; see $out" >&2
}

for round in $(seq 1 "$rounds"); do
  for name in tail rss stream hap; do
    case ",$only," in *",$name,"*) ;; *) continue ;; esac
    measure "$name" before "$before" "$round"
    measure "$name" after "$after" "$round"
  done
done

# Callgrind: homegate under valgrind through a `homegate` wrapper (HOMEGATE_BENCH_GATEWAY); valgrind
# 3.19 reads the static build only without its debug information, so a stripped copy runs.
start_callgrind() {
  local build=$1 dir=$2 seconds=$3
  local tools; tools=$(tools_of "$dir")
  local stripped="$out/homegate-$build.stripped" wrapper="$out/homegate-$build-callgrind-$seconds"
  local log="$out/callgrind-$build-$seconds.log"
  [ -x "$stripped" ] || objcopy --strip-debug "$dir/.build/release/homegate" "$stripped"
  printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s "%s" "$@"\n' \
    "$out/callgrind-$build-$seconds.out" "$stripped" >"$wrapper"
  chmod +x "$wrapper"
  start "$log" 300 env "HOMEGATE_BENCH_GATEWAY=$wrapper" \
    "$tools/.build/release/homegate-bench" gateway --flood 500 --rate 50 --seconds "$seconds"
}
if case ",$only," in *,callgrind,*) true ;; *) false ;; esac; then
  command -v valgrind >/dev/null || { echo "centre-bench.sh: valgrind is missing (scripts/install-deps.sh)" >&2; exit 1; }
  for seconds in 5 25; do
    echo "centre-bench: callgrind, --seconds $seconds, before and after side by side ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
    start_callgrind before "$before" "$seconds"
    start_callgrind after "$after" "$seconds"
    finish || true
    for build in before after; do  # a run that did not end with its figures: once more, alone
      grep -q "gateway start-up with" "$out/callgrind-$build-$seconds.log" && continue
      echo "centre-bench: callgrind $build --seconds $seconds did not finish ($out/callgrind-$build-$seconds.log); once more"
      mv "$out/callgrind-$build-$seconds.log" "$out/callgrind-$build-$seconds.failed.log"
      rm -f "$out/callgrind-$build-$seconds.out"
      if [ "$build" = before ]; then start_callgrind before "$before" "$seconds"; else start_callgrind after "$after" "$seconds"; fi
      finish || { echo "centre-bench: callgrind $build --seconds $seconds failed again" >&2; rm -f "$out/callgrind-$build-$seconds.out"; }
    done
  done
fi

echo
python3 "$here/scripts/centre-bench-table.py" "$out" "$rounds"
