#!/usr/bin/env python3
"""The HomeKit bridge benchmark: HAP next to homegate's own MQTT paths, with a broker-only echo as
the floor, in one run, on a house big enough for several bridges under steady device load.

    scripts/hap-bench.sh [--runs 3] [--devices 400] [--rate 2000] [--bin-path .build/release] ...

(scripts/hap-bench.sh makes the virtual environment with scripts/hap-bench-requirements.txt and
runs this file; `--help` lists every option.) Build first, as docs/performance.md says:

    swift build -c release --static-swift-stdlib --product homegate
    swift build -c release --static-swift-stdlib --product homegate-simulator
    swift build -c release --static-swift-stdlib --product homegate-bench

Each run is a fresh house on 127.0.0.1 and free ports: Mosquitto, `homegate-bench echo` (the
floor: republishes bench/echo/in to bench/echo/out from libmosquitto's callback), the Zigbee2MQTT
simulator with --generate DEVICES --rate RATE (the background load, from the start), and `homegate
run` with the HomeKit bridge on a free block of ports (149 accessories per bridge). Once the house
is complete (the accessory count and every bridge's c# steady), each bridge is paired once with
aiohomekit (the controller library Home Assistant uses), then:

1. writes: a light's brightness, taking turns: the echo (publish, echo, receive), homegate's MQTT
   path (publish homegate/set/<accessory>/lightbulb/brightness) and HAP (aiohomekit PUT
   /characteristics), each timed until zigbee2mqtt/<light>/set (or the echo) reaches a subscriber;
2. events: the device publishes a new brightness on zigbee2mqtt/<light>; timed until
   homegate/event/<light>/lightbulb/brightness reaches a subscriber and until the EVENT/1.0 reaches
   a controller subscribed to the probe lights only (so each probe opens its own coalescing window);
   an echo after each; then ISOLATED changes, each after a quiet second, timed the same way (the
   first change after a quiet window); then BURSTS of changes to one light, counting the EVENT/1.0
   messages its controller connection gets for it (at most one per gathering window);
3. pair-verify: new connections, each verified; the controller's own share is the time spent in
   aiohomekit's pair-verify steps (its X25519, HKDF, ChaCha20-Poly1305, Ed25519), timed apart;
4. CPU and memory of homegate over a window with no controller, then with CONTROLLERS controllers
   on every bridge, each subscribed to every characteristic that notifies.

All clients are Python asyncio in this one process (aiomqtt over paho-mqtt for MQTT, aiohomekit for
HAP), so the receive side is the same for every path and the send sides cost alike. Every process
started is ended by its PID. Prints one table per run, then medians and ranges over the runs.
"""

import argparse
import asyncio
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from unittest.mock import MagicMock

import aiomqtt
from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip import connection as hap_connection
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService

ROOT = Path(__file__).resolve().parents[1]
SETUP_CODE = "031-45-154"
PER_BRIDGE = 149
APPLE = "-0000-1000-8000-0026BB765291"
LIGHTBULB, BRIGHTNESS, SERIAL = "00000043" + APPLE, "00000008" + APPLE, "00000030" + APPLE
ECHO_IN, ECHO_OUT = "bench/echo/in", "bench/echo/out"


def say(text=""):
    print(text, flush=True)


def check_prerequisites(args):
    """The options' bounds and what a run needs (shared with matter-bench.py)."""
    if args.rate < 1:
        raise SystemExit("--rate: at least 1 (homegate-simulator --rate 0 stops at its first tick)")
    for binary in ("homegate", "homegate-simulator", "homegate-bench"):
        if not (Path(args.bin_path) / binary).exists():
            raise SystemExit(f"{args.bin_path}/{binary} is missing: build it first (swift build -c release --static-swift-stdlib --product {binary})")
    if not shutil.which("mosquitto"):
        raise SystemExit("mosquitto is missing (scripts/install-deps.sh)")


def load_average():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# --- processes and ports -------------------------------------------------------------------------

def free_port_block(size):
    """A free port on 127.0.0.1 whose next size-1 ports are free too."""
    for _ in range(100):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + size > 65535:
            continue
        held = []
        try:
            for port in range(first, first + size):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise SystemExit(f"no {size} free ports in a row on 127.0.0.1")


def stop(process, timeout=15):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class ProcStat:
    """CPU seconds and memory of a process, from /proc."""

    def __init__(self, pid):
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()
        self.cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        status = Path(f"/proc/{pid}/status").read_text()

        def kib(key):
            match = re.search(rf"^{key}:\s+(\d+)", status, re.M)
            return int(match.group(1)) if match else 0

        self.rss_mb = kib("VmRSS") / 1024
        self.peak_mb = kib("VmHWM") / 1024
        self.at = time.monotonic()


def cpu_percent(before, after):
    return 100 * (after.cpu - before.cpu) / (after.at - before.at)


class House:
    """Mosquitto, the echo, the simulator and homegate for one run, in a scratch folder."""

    def __init__(self, args):
        self.args = args
        self.bin = Path(args.bin_path).resolve()
        self.dir = Path(tempfile.mkdtemp(prefix="homegate-hap-bench-"))
        self.processes = {}
        self.mqtt_port = self.http_port = None
        bridges = math.ceil(args.devices * 1.2 / PER_BRIDGE) + 1  # room: a device may give more than one accessory
        self.hap_port = free_port_block(bridges)

    def spawn(self, name, argv, env=None, cwd=None):
        log = open(self.dir / f"{name}.log", "ab")
        self.processes[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd or self.dir)
        return self.processes[name]

    def log(self, name):
        return (self.dir / f"{name}.log").read_text(errors="replace")

    def start(self):
        for _ in range(3):
            port = free_port_block(1)
            (self.dir / "mosquitto.conf").write_text(
                f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                "max_queued_messages 0\nmax_queued_bytes 0\nset_tcp_nodelay true\n")
            mosquitto = self.spawn("mosquitto", ["mosquitto", "-c", str(self.dir / "mosquitto.conf")])
            if wait(lambda: mosquitto.poll() is not None or connectable(port), 10) and mosquitto.poll() is None:
                self.mqtt_port = port
                break
            stop(mosquitto)
        else:
            raise SystemExit(f"mosquitto did not start:\n{self.log('mosquitto')[-2000:]}")
        self.spawn("echo", [str(self.bin / "homegate-bench"), "echo", "--port", str(self.mqtt_port), "--from", ECHO_IN, "--to", ECHO_OUT])
        self.spawn("simulator", [
            str(self.bin / "homegate-simulator"), "--url", f"mqtt://127.0.0.1:{self.mqtt_port}",
            "--devices", str(ROOT / "demo" / "devices.json"), "--generate", str(self.args.devices), "--rate", str(self.args.rate)])
        (self.dir / "homegate").mkdir()
        (self.dir / "mappings").mkdir()  # Zigbee2MQTT's devices only, as homegate-bench's house
        (self.dir / "mappings" / "zigbee2mqtt.yaml").write_text("source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n")
        gateway = self.spawn("homegate", [str(self.bin / "homegate"), "run"], env=self.environment(), cwd=self.dir / "homegate")

        def listening():
            if gateway.poll() is not None:
                raise SystemExit(f"homegate exited with {gateway.returncode}:\n{self.log('homegate')[-3000:]}")
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", self.log("homegate"))
            return int(match.group(1)) if match else None

        self.http_port = wait(listening, 60) or sys.exit(f"homegate did not listen for HTTP:\n{self.log('homegate')[-3000:]}")

    def environment(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_")}
        env.update({
            "HOMEGATE_MQTT_URL": f"mqtt://127.0.0.1:{self.mqtt_port}",
            "HOMEGATE_MAPPINGS": str(self.dir / "mappings"),
            "HOMEGATE_DATABASE": str(self.dir / "homegate" / "homegate.sqlite"),
            "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0",
            "HOMEGATE_LOG_LEVEL": "info",
            "HOMEGATE_HAP_ENABLED": "true",
            "HOMEGATE_HAP_BIND": "127.0.0.1",
            "HOMEGATE_HAP_PORT": str(self.hap_port),
            "HOMEGATE_HAP_NAME": "homegate bench",
            "HOMEGATE_HAP_SETUP_CODE": SETUP_CODE,
        })
        return env

    @property
    def gateway_pid(self):
        return self.processes["homegate"].pid

    def accessories(self):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/api/accessories", timeout=10) as response:
            return json.loads(response.read())["accessories"]

    def bridges(self):
        """`homegate hap pairing`, parsed: one dict per bridge (setup code, device id, c#, port)."""
        result = subprocess.run([str(self.bin / "homegate"), "hap", "pairing"], cwd=self.dir / "homegate",
                                env=self.environment(), capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise SystemExit(f"homegate hap pairing failed: {result.stderr}")
        bridges = [{"port": str(self.hap_port)}]
        for line in result.stdout.splitlines():
            header = re.match(r"bridge (\d+): .*, port (\d+)", line)
            if header:
                if "device id" in bridges[-1]:
                    bridges.append({})
                bridges[-1]["port"] = header.group(2)
            elif ":" in line and not line.startswith(" "):
                key, value = line.split(":", 1)
                bridges[-1][key.strip()] = value.strip()
        return bridges

    def wait_until_complete(self):
        """The accessory count steady for 3 s, one bridge per 149, each listening, and c# steady."""
        last, since = -1, time.monotonic()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            count = len(self.accessories())
            if count != last:
                last, since = count, time.monotonic()
            elif count > 0 and time.monotonic() - since >= 3:
                bridges = self.bridges()
                if len(bridges) == math.ceil(count / PER_BRIDGE) and all(connectable(int(b["port"])) for b in bridges):
                    time.sleep(1)
                    again = self.bridges()
                    if [b["c#"] for b in again] == [b["c#"] for b in bridges]:
                        return count, again
            time.sleep(0.25)
        raise SystemExit(f"the house was not complete within 120 s (last count {last})")

    def stop(self):
        for name in ["homegate", "simulator", "echo", "mosquitto"]:
            if name in self.processes:
                stop(self.processes.pop(name))


def connectable(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait(condition, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return None


def measured_rate(port, seconds=4):
    """Device messages per second on zigbee2mqtt/+ (retained ones left out), by mosquitto_sub."""
    try:
        out = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "zigbee2mqtt/+", "-R", "-W", str(seconds)],
                             capture_output=True, text=True, timeout=seconds + 5).stdout
    except subprocess.TimeoutExpired as timeout:
        out = (timeout.stdout or b"").decode() if isinstance(timeout.stdout, bytes) else (timeout.stdout or "")
    return out.count("\n") / seconds


# --- HAP ------------------------------------------------------------------------------------------

def controller():
    return IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=MagicMock())


async def pair(bridge, alias):
    service = HomeKitService(
        name="homegate bench", id=bridge["device id"], model="homegate", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=int(bridge["c#"]), state_num=1, category=2, protocol_version="1.1",
        type="_hap._tcp.local.", address="127.0.0.1", addresses=["127.0.0.1"], port=int(bridge["port"]))
    found = IpDiscovery(controller(), service)
    started = time.perf_counter()
    finish = await found.async_start_pairing(alias)
    paired = await finish(bridge["setup code"])
    elapsed = time.perf_counter() - started
    data = dict(paired.pairing_data)
    await paired.close()
    await found.close()
    data.update({"AccessoryIP": "127.0.0.1", "AccessoryIPs": ["127.0.0.1"], "AccessoryPort": int(bridge["port"])})
    return data, elapsed


class TimedPairVerify:
    """aiohomekit's pair-verify state machine, with the time spent in its own steps summed: the
    controller's crypto and TLV work, without the network and the accessory."""

    spent = 0.0
    original = hap_connection.get_session_keys

    def __init__(self, pairing_data, *rest):
        self.inner = TimedPairVerify.original(pairing_data, *rest)

    def send(self, value):
        started = time.perf_counter()
        try:
            return self.inner.send(value)
        except StopIteration as done:
            proof, derive = done.value

            def timed_derive(*args):
                at = time.perf_counter()
                try:
                    return derive(*args)
                finally:
                    TimedPairVerify.spent += time.perf_counter() - at

            raise StopIteration((proof, timed_derive)) from None
        finally:
            TimedPairVerify.spent += time.perf_counter() - started


def notifying(accessories):
    return [(a["aid"], c["iid"]) for a in accessories for s in a["services"] for c in s["characteristics"] if "ev" in c.get("perms", [])]


def lights_of(accessories, bridge_index):
    """(serial, aid, iid of Brightness) of each bridged light."""
    found = []
    for accessory in accessories:
        serial = next((c["value"] for s in accessory["services"] for c in s["characteristics"] if c["type"].upper() == SERIAL), None)
        for service in accessory["services"]:
            if service["type"].upper() == LIGHTBULB:
                for c in service["characteristics"]:
                    if c["type"].upper() == BRIGHTNESS and accessory["aid"] != 1:
                        found.append({"id": serial, "aid": accessory["aid"], "iid": c["iid"], "bridge": bridge_index})
    return found


# --- MQTT and arrivals ----------------------------------------------------------------------------

class Arrivals:
    """What each probe waits for, set from the MQTT subscriber's loop and aiohomekit's callbacks."""

    def __init__(self):
        self.mqtt = {}  # topic -> (predicate, future)
        self.hap = {}  # (aid, iid) -> (value, future)
        self.watched = None  # (aid, iid) whose EVENT messages are timed, for the bursts
        self.watched_at = []

    def expect_mqtt(self, topic, predicate=lambda payload: True):
        future = asyncio.get_running_loop().create_future()
        self.mqtt[topic] = (predicate, future)
        return future

    def expect_hap(self, key, value):
        future = asyncio.get_running_loop().create_future()
        self.hap[key] = (value, future)
        return future

    async def read(self, client):
        async for message in client.messages:
            at = time.perf_counter()
            topic = message.topic.value
            waiting = self.mqtt.get(topic)
            if waiting and not waiting[1].done():
                try:
                    payload = json.loads(message.payload)
                except ValueError:
                    payload = message.payload
                if waiting[0](payload):
                    waiting[1].set_result(at)
                    del self.mqtt[topic]

    def hap_event(self, event):
        at = time.perf_counter()
        if self.watched in event:
            self.watched_at.append(at)
        for key, body in event.items():
            waiting = self.hap.get(key)
            if waiting and body.get("value") == waiting[0] and not waiting[1].done():
                waiting[1].set_result(at)
                del self.hap[key]


def percentile(samples, p):
    if not samples:
        return math.nan
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def ms(seconds_list):
    return [s * 1000 for s in seconds_list]


# --- one run --------------------------------------------------------------------------------------

async def one_run(args, number):
    figures = {"load at start": load_average()}
    house = House(args)
    pairings = []
    try:
        house.start()
        accessory_count, bridges = house.wait_until_complete()
        figures["accessories"] = accessory_count
        figures["bridges"] = len(bridges)
        say(f"run {number}: {accessory_count} accessories on {len(bridges)} bridges (ports {', '.join(b['port'] for b in bridges)}), "
            f"logs in {house.dir}")
        figures["background msg/s"] = measured_rate(house.mqtt_port)

        setups = []
        for index, bridge in enumerate(bridges):
            data, elapsed = await pair(bridge, f"bench-{index}")
            bridge["pairing"] = data
            setups.append(elapsed)
        figures["pair-setup"] = ms(setups)

        def connect(bridge):
            pairing = IpPairing(controller(), dict(bridge["pairing"]))
            pairings.append(pairing)
            return pairing

        writers = [connect(b) for b in bridges]
        listings = [await w.list_accessories_and_characteristics() for w in writers]
        lights = [light for index, listing in enumerate(listings) for light in lights_of(listing, index)]
        api_ids = {a["id"] for a in house.accessories()}
        lights = [light for light in lights if light["id"] in api_ids]
        if len({light["bridge"] for light in lights}) < len(bridges):
            say(f"note: lights on {len({light['bridge'] for light in lights})} of {len(bridges)} bridges only")
        figures["probe lights"] = len(lights)

        arrivals = Arrivals()
        async with aiomqtt.Client("127.0.0.1", port=house.mqtt_port, identifier="hap-bench-sub") as sub, \
                aiomqtt.Client("127.0.0.1", port=house.mqtt_port, identifier="hap-bench-pub") as pub:
            await sub.subscribe([("zigbee2mqtt/+/set", 0), (ECHO_OUT, 0), ("homegate/event/+/lightbulb/brightness", 0)])
            reader = asyncio.create_task(arrivals.read(sub))
            try:
                await echo_ready(pub, arrivals)
                await asyncio.sleep(1)
                await writes(args, figures, lights, writers, pub, arrivals)
                await events(args, figures, lights, bridges, connect, pub, arrivals)
            finally:
                reader.cancel()
        for pairing in pairings:
            await pairing.close()
        pairings.clear()
        await pair_verifies(args, figures, bridges)
        await cpu_windows(args, figures, house, bridges)
        figures["load at end"] = load_average()
    finally:
        for pairing in pairings:
            await pairing.close()
        house.stop()
    return figures


async def echo_ready(pub, arrivals):
    for _ in range(100):
        arrived = arrivals.expect_mqtt(ECHO_OUT)
        await pub.publish(ECHO_IN, b"{}")
        try:
            await asyncio.wait_for(arrived, 0.1)
            return
        except asyncio.TimeoutError:
            pass
    raise SystemExit("the echo did not answer within 10 s")


async def arrival(future, lost, path, timeout=2):
    """The arrival time, or None (counted as lost) after `timeout` seconds."""
    try:
        return await asyncio.wait_for(future, timeout)
    except asyncio.TimeoutError:
        lost[path] = lost.get(path, 0) + 1
        return None


async def echo_probe(pub, arrivals, mark):
    arrived = arrivals.expect_mqtt(ECHO_OUT, lambda payload: payload == {"n": mark})
    started = time.perf_counter()
    await pub.publish(ECHO_IN, json.dumps({"n": mark}))
    return await asyncio.wait_for(arrived, 2) - started


async def writes(args, figures, lights, writers, pub, arrivals):
    """Echo, MQTT and HAP in turn; a light's brightness changes at every write."""
    samples = {"echo": [], "mqtt": [], "hap": [], "hap response": []}
    lost = {}
    value = {light["id"]: 0 for light in lights}
    turn = 0
    for n in range(args.writes):
        for path in ("echo", "mqtt", "hap"):
            if path == "echo":
                samples["echo"].append(await echo_probe(pub, arrivals, n))
            else:
                light = lights[turn % len(lights)]
                turn += 1
                percent = value[light["id"]] = 10 + (value[light["id"]] + 7) % 90
                wanted = percent * 254 / 100  # homegate rounds it; Python's round() halves to even
                arrived = arrivals.expect_mqtt(f"zigbee2mqtt/{light['id']}/set",
                                               lambda p, w=wanted: isinstance(p, dict) and abs(p.get("brightness", -9) - w) <= 0.5)
                started = time.perf_counter()
                if path == "mqtt":
                    await pub.publish(f"homegate/set/{light['id']}/lightbulb/brightness", str(percent))
                else:
                    result = await writers[light["bridge"]].put_characteristics([(light["aid"], light["iid"], percent)])
                    samples["hap response"].append(time.perf_counter() - started)
                    if result:
                        raise SystemExit(f"HAP write to {light['id']} refused: {result}")
                at = await arrival(arrived, lost, path)
                if at is not None:
                    samples[path].append(at - started)
            await asyncio.sleep(random.uniform(0.5, 1.5) * args.gap / 1000)
    for key, values in samples.items():
        figures[f"write {key}"] = ms(values)
    figures["write lost"] = lost


async def events(args, figures, lights, bridges, connect, pub, arrivals):
    """The device publishes a new brightness; MQTT event and HAP EVENT from the same publish."""
    listeners = []
    for index in range(len(bridges)):
        listener = connect(bridges[index])
        listener.dispatcher_connect(arrivals.hap_event)
        mine = [(light["aid"], light["iid"]) for light in lights if light["bridge"] == index]
        if mine:
            await listener.list_accessories_and_characteristics()
            await listener.subscribe(mine)
        listeners.append(listener)
    await asyncio.sleep(1)
    samples = {"mqtt": [], "hap": [], "echo": [], "hap after mqtt": []}
    lost = {}
    percent = {light["id"]: 50 for light in lights}
    for n in range(args.events):
        light = lights[n % len(lights)]
        p = percent[light["id"]] = 10 + (percent[light["id"]] + 13) % 90
        brightness = round(p * 254 / 100)
        mqtt = arrivals.expect_mqtt(f"homegate/event/{light['id']}/lightbulb/brightness",
                                    lambda body, p=p: isinstance(body, dict) and body.get("value") == p)
        hap = arrivals.expect_hap((light["aid"], light["iid"]), p)
        started = time.perf_counter()
        await pub.publish(f"zigbee2mqtt/{light['id']}", json.dumps({"state": "ON", "brightness": brightness}))
        both = []
        for path, future in (("mqtt", mqtt), ("hap", hap)):
            at = await arrival(future, lost, path)
            if at is not None:
                samples[path].append(at - started)
                both.append(at)
        if len(both) == 2:
            samples["hap after mqtt"].append(both[1] - both[0])
        samples["echo"].append(await echo_probe(pub, arrivals, f"e{n}"))
        await asyncio.sleep(random.uniform(0.5, 1.5) * args.gap / 1000)
    for key, values in samples.items():
        figures[f"event {key}"] = ms(values)
    figures["event lost"] = lost
    await isolated(args, figures, lights, pub, arrivals, percent)
    await bursts(args, figures, lights, pub, arrivals, percent)


async def isolated(args, figures, lights, pub, arrivals, percent):
    """A change after a quiet second (no probe in between): MQTT event and HAP EVENT from one publish."""
    samples = {"mqtt": [], "hap": []}
    lost = {}
    for n in range(args.isolated):
        await asyncio.sleep(1)
        light = lights[n % len(lights)]
        p = percent[light["id"]] = 10 + (percent[light["id"]] + 13) % 90
        mqtt = arrivals.expect_mqtt(f"homegate/event/{light['id']}/lightbulb/brightness",
                                    lambda body, p=p: isinstance(body, dict) and body.get("value") == p)
        hap = arrivals.expect_hap((light["aid"], light["iid"]), p)
        started = time.perf_counter()
        await pub.publish(f"zigbee2mqtt/{light['id']}", json.dumps({"state": "ON", "brightness": round(p * 254 / 100)}))
        for path, future in (("mqtt", mqtt), ("hap", hap)):
            at = await arrival(future, lost, path)
            if at is not None:
                samples[path].append(at - started)
    for key, values in samples.items():
        figures[f"isolated {key}"] = ms(values)
    figures["isolated lost"] = lost


async def bursts(args, figures, lights, pub, arrivals, percent):
    """BURST_SIZE changes of one light, BURST_GAP ms apart, after a quiet second: the EVENT/1.0
    messages its controller connection gets for it until a second after the last, and the most of
    them inside any span shorter than the gathering window."""
    per_burst, most_in_window = [], []
    for n in range(args.bursts):
        light = lights[n % len(lights)]
        await asyncio.sleep(1)
        arrivals.watched, arrivals.watched_at = (light["aid"], light["iid"]), []
        for _ in range(args.burst_size):
            p = percent[light["id"]] = 10 + (percent[light["id"]] + 13) % 90
            await pub.publish(f"zigbee2mqtt/{light['id']}", json.dumps({"state": "ON", "brightness": round(p * 254 / 100)}))
            await asyncio.sleep(args.burst_gap / 1000)
        await asyncio.sleep(1)
        times = list(arrivals.watched_at)
        arrivals.watched = None
        per_burst.append(len(times))
        span = (args.hap_window - 5) / 1000  # a little short of the window: the timers' own jitter
        most_in_window.append(max((sum(1 for u in times if t <= u < t + span) for t in times), default=0))
    figures["burst events"] = per_burst
    figures["burst most in window"] = most_in_window


async def pair_verifies(args, figures, bridges):
    """New connections, each pair-verified; the controller's own steps timed apart."""
    hap_connection.get_session_keys = TimedPairVerify
    totals, own = [], []
    try:
        for n in range(args.verifies):
            pairing = IpPairing(controller(), dict(bridges[n % len(bridges)]["pairing"]))
            TimedPairVerify.spent = 0.0
            started = time.perf_counter()
            await pairing._ensure_connected()
            totals.append(time.perf_counter() - started)
            own.append(TimedPairVerify.spent)
            await pairing.close()
            await asyncio.sleep(0.02)
    finally:
        hap_connection.get_session_keys = TimedPairVerify.original
    figures["pair-verify"] = ms(totals)
    figures["pair-verify client"] = ms(own)


async def cpu_windows(args, figures, house, bridges):
    """homegate's CPU and RSS over a window with no controller, then with N on every bridge."""
    await asyncio.sleep(2)
    before = ProcStat(house.gateway_pid)
    await asyncio.sleep(args.window)
    after = ProcStat(house.gateway_pid)
    figures["cpu idle"] = cpu_percent(before, after)
    figures["rss idle"] = after.rss_mb
    figures["load idle window"] = load_average()

    controllers, received = [], [0]

    def count(event):
        received[0] += len(event)

    subscribed = 0
    for n in range(args.controllers):
        for bridge in bridges:
            pairing = IpPairing(controller(), dict(bridge["pairing"]))
            controllers.append(pairing)
            listing = await pairing.list_accessories_and_characteristics()
            wanted = notifying(listing)
            pairing.dispatcher_connect(count)
            await pairing.subscribe(wanted)
            subscribed += len(wanted)
    try:
        await asyncio.sleep(2)
        received[0] = 0
        before, own_before = ProcStat(house.gateway_pid), ProcStat(os.getpid())
        await asyncio.sleep(args.window)
        after, own_after = ProcStat(house.gateway_pid), ProcStat(os.getpid())
        figures["cpu controllers"] = cpu_percent(before, after)
        figures["rss controllers"] = after.rss_mb
        figures["peak rss"] = after.peak_mb
        figures["controller values/s"] = received[0] / (after.at - before.at)
        figures["controller cpu"] = cpu_percent(own_before, own_after)
        figures["subscriptions"] = subscribed
        figures["load controllers window"] = load_average()
    finally:
        for pairing in controllers:
            await pairing.close()


# --- report ---------------------------------------------------------------------------------------

def rows(f):
    """(label, value text, number for the summary) for one run."""
    out = []

    def lat(label, key):
        values = f[key]
        out.append((f"{label} p50 (ms)", percentile(values, 0.5)))
        out.append((f"{label} p99 (ms)", percentile(values, 0.99)))

    lat("write, broker-only echo", "write echo")
    lat("write → /set, MQTT homegate/set", "write mqtt")
    lat("write → /set, HAP PUT", "write hap")
    echo, mqtt, hap = (percentile(f[k], 0.5) for k in ("write echo", "write mqtt", "write hap"))
    out.append(("HAP p50 − MQTT p50 (ms; target ≤ 2)", hap - mqtt))
    out.append(("MQTT p50 / echo p50", mqtt / echo))
    out.append(("HAP p50 / echo p50", hap / echo))
    out.append(("HAP PUT answered, p50 (ms)", percentile(f["write hap response"], 0.5)))
    lat("event, broker-only echo", "event echo")
    lat("device → homegate/event (MQTT)", "event mqtt")
    lat("device → HAP EVENT", "event hap")
    out.append(("HAP EVENT p99 over 250 ms (ms; target ≤ 5; the window is 240 ms)", percentile(f["event hap"], 0.99) - 250))
    lat("HAP EVENT after the MQTT event, same publish", "event hap after mqtt")
    lat("isolated change → homegate/event (MQTT)", "isolated mqtt")
    lat("isolated change → HAP EVENT", "isolated hap")
    out.append(("isolated HAP EVENT p99 − MQTT event p99 (ms; target ≤ 5)",
                percentile(f["isolated hap"], 0.99) - percentile(f["isolated mqtt"], 0.99)))
    event_echo = percentile(f["event echo"], 0.5)
    out.append(("isolated MQTT event p50 / event echo p50", percentile(f["isolated mqtt"], 0.5) / event_echo))
    out.append(("isolated HAP EVENT p50 / event echo p50", percentile(f["isolated hap"], 0.5) / event_echo))
    out.append((f"burst of {f['burst size']} changes {f['burst gap']:g} ms apart → EVENTs per connection, mean",
                statistics.mean(f["burst events"]) if f["burst events"] else math.nan))
    out.append((f"burst → EVENTs within any {f['hap window']:g} ms per connection, max (target ≤ 1)",
                max(f["burst most in window"], default=math.nan)))
    out.append(("MQTT event p50 / echo p50", percentile(f["event mqtt"], 0.5) / percentile(f["event echo"], 0.5)))
    lat("pair-verify", "pair-verify")
    out.append(("pair-verify, controller's own steps p50 (ms)", percentile(f["pair-verify client"], 0.5)))
    out.append(("pair-setup per bridge, p50 (ms)", percentile(f["pair-setup"], 0.5)))
    out.append(("homegate CPU, no controller (% of a core)", f["cpu idle"]))
    out.append((f"homegate CPU, {f['controllers']} controllers per bridge (% of a core)", f["cpu controllers"]))
    out.append(("CPU ratio, controllers / none", f["cpu controllers"] / f["cpu idle"] if f["cpu idle"] else math.nan))
    out.append(("homegate RSS, no controller (MB)", f["rss idle"]))
    out.append(("homegate RSS, with controllers (MB)", f["rss controllers"]))
    out.append(("homegate peak RSS (MB)", f["peak rss"]))
    out.append(("values delivered to the controllers (/s)", f["controller values/s"]))
    out.append(("the controllers' own CPU (Python, % of a core)", f["controller cpu"]))
    out.append(("background device messages (/s, measured)", f["background msg/s"]))
    return out


def fmt(value):
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        return f"{value:.2f}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def summary(f):
    """One run's counts, losses and load, the line under the table."""
    return (f"{f['accessories']} accessories on {f['bridges']} bridges, {f['probe lights']} probe lights, "
            f"{len(f['write hap'])} writes and {len(f['event hap'])} events per path, {len(f['pair-verify'])} verifies, "
            f"{len(f['isolated hap'])} isolated changes, {len(f['burst events'])} bursts, "
            f"{f['subscriptions']} subscriptions, lost (not arrived within 2 s): writes {f['write lost'] or 'none'}, "
            f"events {f['event lost'] or 'none'}, isolated {f['isolated lost'] or 'none'}; load average {f['load at start']} at start, {f['load idle window']} "
            f"(no controller), {f['load controllers window']} (controllers), {f['load at end']} at the end")


def report(all_figures, first=1, rows=rows, summary=summary):
    """A Markdown table of each run's `rows` (with the median and range over several runs), then each run's `summary`;
    matter-bench.py passes its own."""
    tables = [rows(f) for f in all_figures]
    header = ["figure"] + [f"run {first + i}" for i in range(len(tables))]
    if len(tables) > 1:
        header += ["median", "range"]
    say("| " + " | ".join(header) + " |")
    say("|" + " --- |" * len(header))
    for index, (label, _) in enumerate(tables[0]):
        values = [table[index][1] for table in tables]
        cells = [label] + [fmt(v) for v in values]
        if len(tables) > 1:
            cells += [fmt(statistics.median(values)), f"{fmt(min(values))}–{fmt(max(values))}"]
        say("| " + " | ".join(cells) + " |")
    for i, f in enumerate(all_figures):
        say(f"run {first + i}: {summary(f)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-path", default=os.environ.get("HOMEGATE_BIN_PATH", str(ROOT / ".build" / "release")),
                        help="the folder with homegate, homegate-simulator and homegate-bench (default .build/release)")
    parser.add_argument("--runs", type=int, default=3, help="runs, each with a fresh house (default 3)")
    parser.add_argument("--devices", type=int, default=400, help="simulated devices (default 400)")
    parser.add_argument("--rate", type=int, default=2000, help="background device messages per second, at least 1 (default 2000)")
    parser.add_argument("--writes", type=int, default=300, help="write probes per path (default 300)")
    parser.add_argument("--events", type=int, default=120, help="event probes (default 120; each waits out the coalescing window)")
    parser.add_argument("--isolated", type=int, default=30, help="isolated changes, each after a quiet second (default 30)")
    parser.add_argument("--bursts", type=int, default=10, help="bursts of changes to one light (default 10)")
    parser.add_argument("--burst-size", type=int, default=10, help="changes per burst (default 10)")
    parser.add_argument("--burst-gap", type=float, default=10, help="milliseconds between a burst's changes (default 10)")
    parser.add_argument("--hap-window", type=float, default=240, help="the bridge's gathering window in ms, for the burst figure (default 240)")
    parser.add_argument("--verifies", type=int, default=50, help="pair-verifies (default 50)")
    parser.add_argument("--controllers", type=int, default=5, help="controllers per bridge for the CPU window (default 5)")
    parser.add_argument("--window", type=float, default=15, help="seconds of each CPU window (default 15)")
    parser.add_argument("--gap", type=float, default=20, help="mean milliseconds between probes (default 20)")
    args = parser.parse_args()
    check_prerequisites(args)
    say(f"machine: {os.cpu_count()} cores, load average {load_average()}; {args.devices} devices, {args.rate} device messages/s "
        f"in the background, {args.runs} runs")
    results = []
    for number in range(1, args.runs + 1):
        figures = asyncio.run(one_run(args, number))
        figures["controllers"] = args.controllers
        figures.update({"burst size": args.burst_size, "burst gap": args.burst_gap, "hap window": args.hap_window})
        results.append(figures)
        say()
        report([figures], first=number)
        say()
    if len(results) > 1:
        say(f"over {len(results)} runs:")
        report(results)


if __name__ == "__main__":
    main()
