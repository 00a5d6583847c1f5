#!/usr/bin/env python3
"""The Matter bridge benchmark (issue 45): Matter next to homegate's MQTT paths, HAP for scale, and
a broker-only echo as the floor, in one run, on 400 devices under 2,000 device messages a second.

    scripts/matter-bench.sh [--runs 2] [--devices 400] [--rate 2000] [--bin-path .build/release] ...

(scripts/matter-bench.sh makes the virtual environment with scripts/matter-bench-requirements.txt,
checks root, /data and libnl-route, and runs this file; `--help` lists every option.) Build first,
as docs/performance.md says (release, --static-swift-stdlib: homegate, homegate-simulator,
homegate-bench).

The Matter SDK's controller cannot commission over loopback (Tests/matter/netns.py says why), so
the house runs in network namespace A (a private D-Bus and avahi-daemon, Mosquitto, `homegate-bench
echo`, `homegate-simulator --generate DEVICES --rate RATE` and `homegate run`) and this process,
every client of every path, in namespace B: each path crosses the same veth pair both ways. Each
run is a fresh house:

1. the reference: `homegate run` with neither bridge, until the house is complete; its CPU and RSS
   over WINDOW seconds; then it is stopped;
2. `homegate run` with the HomeKit bridge and the Matter bridge on, on a fresh database; its CPU and
   RSS over WINDOW seconds with no controller;
3. commissioning: the QR code `homegate matter pairing` prints, commissioned by the SDK's controller
   (DNS-SD discovery through avahi, PASE, attestation, CASE), timed whole; each HomeKit bridge
   paired once (aiohomekit, as scripts/hap-bench.py);
4. writes, taking turns: the echo (publish, echo, receive), homegate's MQTT path (publish
   homegate/set/<light>/lightbulb/brightness), a Matter read of the light's CurrentLevel (answered
   from the bridge's own copy: no house work, so the controller's and the Matter stack's own floor),
   a Matter invoke (LevelControl MoveToLevel) and a HAP PUT; each write timed until
   zigbee2mqtt/<light>/set reaches the subscriber; the invoke's answer timed too;
5. events: the device publishes a new brightness on zigbee2mqtt/<light>; timed until
   homegate/event/<light>/lightbulb/brightness, the Matter report (one subscription, floor 0, to the
   probe lights' CurrentLevel) and the HAP EVENT (subscribed to the probe lights) arrive, under the
   background traffic; then ISOLATED changes, each after a quiet second;
6. homegate's CPU and RSS again over WINDOW seconds with the controllers connected, and its peak.

All clients are Python asyncio in this one process (aiomqtt for MQTT, the SDK's controller for
Matter, aiohomekit for HAP), each arrival stamped as hap-bench.py stamps it; the Matter reports are
stamped in the controller's own thread, as it hands them over. Every process started is ended by
its PID, the namespaces deleted by name. Prints one table per run, then medians and ranges.
"""

import argparse
import asyncio
import hashlib
import importlib.util
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "matter"))
from netns import ADDRESS6_A, ADDRESS_A, Network  # noqa: E402


def _hap_bench():
    spec = importlib.util.spec_from_file_location("hap_bench", ROOT / "scripts" / "hap-bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hb = _hap_bench()  # its processes, HAP pairing, arrivals and percentiles, shared
say, percentile, ms, fmt, load_average = hb.say, hb.percentile, hb.ms, hb.fmt, hb.load_average

PAA_STORE = str(ROOT / "Tests" / "matter" / "paa")  # the SDK's test PAA: attestation is checked, not bypassed
PASSCODE, DISCRIMINATOR = 20202021, 3851
HTTP_TOKEN = "matter-bench-" + os.urandom(8).hex()
SETUP_CODE = hb.SETUP_CODE
ECHO_IN, ECHO_OUT = hb.ECHO_IN, hb.ECHO_OUT


def level_of(percent):
    """The bridge's Level.level(brightness:): a HomeKit brightness in % as a Matter level 1–254."""
    return min(254, max(1, int(percent * 254 / 100 + 0.5)))


def unique_id(key):
    """A bridged endpoint's UniqueID (Sources/MatterBridge): SHA-256 of accessory/service, 16 bytes."""
    return hashlib.sha256(key.encode()).digest()[:16].hex()


class House:
    """Mosquitto, the echo, the simulator and homegate in namespace A, for one run."""

    def __init__(self, args, network):
        self.args = args
        self.network = network
        self.bin = Path(args.bin_path).resolve()
        self.dir = Path(tempfile.mkdtemp(prefix="homegate-matter-bench-"))
        self.processes = {}
        self.mqtt_port = hb.free_port_block(1)  # namespace A has nothing else: free there
        self.hap_port = hb.free_port_block(6)
        self.matter_port = free_udp_port()
        self.http_port = None
        self.env = None

    def spawn(self, name, argv, env=None, cwd=None):
        log = open(self.dir / f"{name}.log", "ab")
        self.processes[name] = subprocess.Popen(
            ["ip", "netns", "exec", self.network.ns_a, *map(str, argv)], stdout=log, stderr=subprocess.STDOUT,
            env=env or self.network.env, cwd=cwd or self.dir, start_new_session=True)
        return self.processes[name]  # `ip netns exec` execs the command: this PID is the program's

    def log(self, name):
        return (self.dir / f"{name}.log").read_text(errors="replace")

    def start(self):
        (self.dir / "mosquitto.conf").write_text(
            f"listener {self.mqtt_port}\nallow_anonymous true\npersistence false\nuser root\n"
            "max_queued_messages 0\nmax_queued_bytes 0\nset_tcp_nodelay true\n")
        mosquitto = self.spawn("mosquitto", ["mosquitto", "-c", self.dir / "mosquitto.conf"])
        if not hb.wait(lambda: mosquitto.poll() is not None or connectable(self.mqtt_port), 10) or mosquitto.poll() is not None:
            raise SystemExit(f"mosquitto did not start:\n{self.log('mosquitto')[-2000:]}")
        self.spawn("echo", [self.bin / "homegate-bench", "echo", "--port", self.mqtt_port, "--from", ECHO_IN, "--to", ECHO_OUT])
        self.spawn("simulator", [
            self.bin / "homegate-simulator", "--url", f"mqtt://127.0.0.1:{self.mqtt_port}",
            "--devices", ROOT / "demo" / "devices.json", "--generate", self.args.devices, "--rate", self.args.rate])
        (self.dir / "mappings").mkdir()  # Zigbee2MQTT's devices only, as hap-bench.py's house
        (self.dir / "mappings" / "zigbee2mqtt.yaml").write_text("source: zigbee2mqtt\nbase_topic: zigbee2mqtt\n")

    def start_gateway(self, name, bridges):
        """`homegate run` in its own folder and database; with bridges, HAP and Matter both on."""
        data = self.dir / name
        data.mkdir()
        env = {k: v for k, v in self.network.env.items() if not k.startswith("HOMEGATE_")}
        env.update({
            "HOMEGATE_MQTT_URL": f"mqtt://127.0.0.1:{self.mqtt_port}",
            "HOMEGATE_MAPPINGS": str(self.dir / "mappings"),
            "HOMEGATE_DATABASE": str(data / "homegate.sqlite"),
            "HOMEGATE_HTTP_LISTEN": f"{ADDRESS_A}:0",  # reached from namespace B, so with a token
            "HOMEGATE_HTTP_TOKEN": HTTP_TOKEN,
            "HOMEGATE_LOG_LEVEL": "info",
            "HOMEGATE_HAP_ENABLED": "true" if bridges else "false",
            "HOMEGATE_MATTER_ENABLED": "true" if bridges else "false",
        })
        if bridges:
            env.update({
                "HOMEGATE_HAP_BIND": ADDRESS_A, "HOMEGATE_HAP_PORT": str(self.hap_port), "HOMEGATE_HAP_NAME": "homegate bench",
                "HOMEGATE_HAP_SETUP_CODE": SETUP_CODE,
                "HOMEGATE_MATTER_PORT": str(self.matter_port), "HOMEGATE_MATTER_PASSCODE": str(PASSCODE),
                "HOMEGATE_MATTER_DISCRIMINATOR": str(DISCRIMINATOR),
            })
        self.env, self.data = env, data
        gateway = self.spawn(name, [self.bin / "homegate", "run"], env=env, cwd=data)
        self.gateway = gateway

        def ready():
            if gateway.poll() is not None:
                raise SystemExit(f"homegate exited with {gateway.returncode}:\n{self.log(name)[-3000:]}")
            text = self.log(name)
            match = re.search(r"listening on http://[0-9.]+:(\d+)/", text)
            return int(match.group(1)) if match and (not bridges or "Matter bridge serving" in text) else None

        self.http_port = hb.wait(ready, 120) or sys.exit(f"homegate did not start within 120 s:\n{self.log(name)[-3000:]}")
        return gateway

    def stop_gateway(self, name):
        hb.stop(self.processes.pop(name))

    def homegate(self, *arguments):
        result = subprocess.run(["ip", "netns", "exec", self.network.ns_a, str(self.bin / "homegate"), *arguments],
                                cwd=self.data, env=self.env, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise SystemExit(f"homegate {' '.join(arguments)} failed: {result.stderr}")
        return result.stdout

    def accessories(self):
        request = urllib.request.Request(f"http://{ADDRESS_A}:{self.http_port}/api/accessories",
                                         headers={"Authorization": f"Bearer {HTTP_TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())["accessories"]

    def bridges(self):
        """`homegate hap pairing`, parsed as hap-bench.py does: one dict per bridge."""
        bridges = [{"port": str(self.hap_port)}]
        for line in self.homegate("hap", "pairing").splitlines():
            header = re.match(r"bridge (\d+): .*, port (\d+)", line)
            if header:
                if "device id" in bridges[-1]:
                    bridges.append({})
                bridges[-1]["port"] = header.group(2)
            elif ":" in line and not line.startswith(" "):
                key, value = line.split(":", 1)
                bridges[-1][key.strip()] = value.strip()
        return bridges

    def wait_until_complete(self, bridges):
        """The accessory count steady for 3 s; with the bridges, one HAP bridge per 149 and c# steady."""
        last, since = -1, time.monotonic()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            count = len(self.accessories())
            if count != last:
                last, since = count, time.monotonic()
            elif count > 0 and time.monotonic() - since >= 3:
                if not bridges:
                    return count, []
                found = self.bridges()
                if len(found) == -(-count // hb.PER_BRIDGE):
                    time.sleep(1)
                    again = self.bridges()
                    if [b["c#"] for b in again] == [b["c#"] for b in found]:
                        return count, again
            time.sleep(0.25)
        raise SystemExit(f"the house was not complete within 120 s (last count {last})")

    def stop(self):
        for name in list(self.processes)[::-1]:
            hb.stop(self.processes.pop(name))


def free_udp_port():
    """A free UDP port for the Matter bridge, as Tests/matter/conftest.py finds one (a TCP probe says nothing of UDP)."""
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
        probe.bind(("::", 0))
        return probe.getsockname()[1]


def connectable(port):
    try:
        with socket.create_connection((ADDRESS_A, port), timeout=0.5):
            return True
    except OSError:
        return False


def measured_rate(port, seconds=4):
    """Device messages per second on zigbee2mqtt/+ (retained ones left out), by mosquitto_sub."""
    try:
        out = subprocess.run(["mosquitto_sub", "-h", ADDRESS_A, "-p", str(port), "-t", "zigbee2mqtt/+", "-R", "-W", str(seconds)],
                             capture_output=True, text=True, timeout=seconds + 5).stdout
    except subprocess.TimeoutExpired as timeout:
        out = timeout.stdout.decode() if isinstance(timeout.stdout, bytes) else (timeout.stdout or "")
    return out.count("\n") / seconds


async def window(house, seconds):
    """homegate's CPU (% of a core) and RSS over `seconds`, and its peak RSS."""
    before = hb.ProcStat(house.gateway.pid)
    await asyncio.sleep(seconds)
    after = hb.ProcStat(house.gateway.pid)
    return hb.cpu_percent(before, after), after.rss_mb, after.peak_mb


async def pair(bridge, alias):
    """hap-bench.py's pair(), with the bridge at namespace A's address."""
    from aiohomekit.controller.ip.discovery import IpDiscovery
    from aiohomekit.model.feature_flags import FeatureFlags
    from aiohomekit.model.status_flags import StatusFlags
    from aiohomekit.zeroconf import HomeKitService
    service = HomeKitService(
        name="homegate bench", id=bridge["device id"], model="homegate", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=int(bridge["c#"]), state_num=1, category=2, protocol_version="1.1",
        type="_hap._tcp.local.", address=ADDRESS_A, addresses=[ADDRESS_A], port=int(bridge["port"]))
    found = IpDiscovery(hb.controller(), service)
    finish = await found.async_start_pairing(alias)
    paired = await finish(bridge["setup code"])
    data = dict(paired.pairing_data)
    await paired.close()
    await found.close()
    data.update({"AccessoryIP": ADDRESS_A, "AccessoryIPs": [ADDRESS_A], "AccessoryPort": int(bridge["port"])})
    return data


class MatterReports:
    """The probe lights' CurrentLevel reports, stamped in the controller's thread as it hands them over."""

    def __init__(self, loop):
        self.loop = loop
        self.waiting = {}  # endpoint -> (level, future)

    def expect(self, endpoint, level):
        future = self.loop.create_future()
        self.waiting[endpoint] = (level, future)
        return future

    def changed(self, path, transaction):
        at = time.perf_counter()
        waiting = self.waiting.get(path.EndpointId)
        if waiting is None or path.ClusterId != 0x0008 or path.AttributeId != 0x0000:
            return
        value = transaction.GetTLVAttribute(path)
        if isinstance(value, int) and abs(value - waiting[0]) <= 1:
            del self.waiting[path.EndpointId]
            self.loop.call_soon_threadsafe(lambda: waiting[1].done() or waiting[1].set_result(at))


# --- one run --------------------------------------------------------------------------------------

async def one_run(args, number, network, fabric_admin):
    import aiomqtt
    import chip.clusters as Clusters
    from aiohomekit.controller.ip.pairing import IpPairing

    level_control = Clusters.LevelControl
    bridged = Clusters.BridgedDeviceBasicInformation
    node = 0x6000 + number
    figures = {"load at start": load_average()}
    house = House(args, network)
    pairings, matter = [], None
    try:
        house.start()
        # 1. The reference: neither bridge.
        house.start_gateway("reference", bridges=False)
        count, _ = house.wait_until_complete(bridges=False)
        figures["reference accessories"] = count
        figures["background msg/s"] = measured_rate(house.mqtt_port)
        figures["cpu reference"], figures["rss reference"], figures["peak reference"] = await window(house, args.window)
        house.stop_gateway("reference")
        say(f"run {number}: reference without bridges: {count} accessories, "
            f"RSS {figures['rss reference']:.1f} MB (peak {figures['peak reference']:.1f}); logs in {house.dir}")

        # 2. Both bridges, no controller yet.
        house.start_gateway("homegate", bridges=True)
        count, bridges = house.wait_until_complete(bridges=True)
        figures["accessories"], figures["hap bridges"] = count, len(bridges)
        figures["cpu bridges"], figures["rss bridges"], figures["peak bridges idle"] = await window(house, args.window)

        # 3. Commissioning (Matter, from the QR code) and HAP pairing.
        qr = next(line.split(":", 1)[1].strip() for line in house.homegate("matter", "pairing").splitlines()
                  if line.startswith("QR code:"))
        matter = fabric_admin.NewController(paaTrustStorePath=PAA_STORE)
        started = time.perf_counter()
        if await matter.CommissionWithCode(qr, node) != node:
            raise SystemExit("commissioning failed")
        figures["commissioning"] = ms([time.perf_counter() - started])
        for index, bridge in enumerate(bridges):
            bridge["pairing"] = await pair(bridge, f"bench-{index}")

        def connect(bridge):
            pairing = IpPairing(hb.controller(), dict(bridge["pairing"]))
            pairings.append(pairing)
            return pairing

        writers = [connect(b) for b in bridges]
        listings = [await w.list_accessories_and_characteristics() for w in writers]
        lights = [light for index, listing in enumerate(listings) for light in hb.lights_of(listing, index)]
        # Each light's Matter endpoint: its UniqueID among the endpoints that have a CurrentLevel.
        ids = await matter.ReadAttribute(node, [(bridged.Attributes.UniqueID)])
        by_unique = {ids[e][bridged][bridged.Attributes.UniqueID]: e for e in ids}
        levels = await matter.ReadAttribute(node, [(level_control.Attributes.CurrentLevel)])
        for light in lights:
            light["endpoint"] = by_unique.get(unique_id(f"{light['id']}/lightbulb"))
        lights = [light for light in lights if light["endpoint"] in levels]
        figures["probe lights"] = len(lights)
        figures["matter endpoints"] = len(ids)
        say(f"run {number}: {count} accessories on {len(bridges)} HomeKit bridges and {len(ids)} Matter endpoints; "
            f"commissioned in {figures['commissioning'][0]:.0f} ms; {len(lights)} probe lights")
        if not lights:
            raise SystemExit("no light is both a HomeKit Lightbulb with Brightness and a Matter endpoint with LevelControl")

        arrivals = hb.Arrivals()
        reports = MatterReports(asyncio.get_running_loop())
        async with aiomqtt.Client(ADDRESS_A, port=house.mqtt_port, identifier="matter-bench-sub") as sub, \
                aiomqtt.Client(ADDRESS_A, port=house.mqtt_port, identifier="matter-bench-pub") as pub:
            await sub.subscribe([("zigbee2mqtt/+/set", 0), (ECHO_OUT, 0), ("homegate/event/+/lightbulb/brightness", 0)])
            reader = asyncio.create_task(arrivals.read(sub))
            try:
                await hb.echo_ready(pub, arrivals)
                await asyncio.sleep(1)
                await writes(args, figures, lights, writers, matter, node, pub, arrivals)
                subscription = await matter.ReadAttribute(
                    node, [(light["endpoint"], level_control.Attributes.CurrentLevel) for light in lights],
                    reportInterval=(0, 30), keepSubscriptions=True)
                subscription.SetAttributeUpdateCallback(None)  # its default prints each change
                subscription.SetRawAttributeUpdateCallback(reports.changed)
                await events(args, figures, lights, bridges, connect, pub, arrivals, reports)
                # 6. With the controllers connected.
                figures["cpu controllers"], figures["rss controllers"], figures["peak"] = await window(house, args.window)
                subscription.Shutdown()
            finally:
                reader.cancel()
        figures["load at end"] = load_average()
    finally:
        for pairing in pairings:
            await pairing.close()
        if matter is not None:
            matter.Shutdown()
        house.stop()
    return figures


async def writes(args, figures, lights, writers, matter, node, pub, arrivals):
    """Echo, MQTT, a Matter read, a Matter invoke and HAP in turn; a light's brightness changes at every write."""
    import chip.clusters as Clusters
    level_control = Clusters.LevelControl
    paths = ("echo", "mqtt", "matter read", "matter", "hap")
    samples = {path: [] for path in paths} | {"matter answered": [], "hap answered": []}
    lost = {}
    value = {light["id"]: 0 for light in lights}
    turn = 0
    for n in range(args.writes):
        for path in paths:
            if path == "echo":
                samples["echo"].append(await hb.echo_probe(pub, arrivals, n))
            elif path == "matter read":
                light = lights[turn % len(lights)]
                started = time.perf_counter()
                await matter.ReadAttribute(node, [(light["endpoint"], level_control.Attributes.CurrentLevel)])
                samples[path].append(time.perf_counter() - started)
            else:
                light = lights[turn % len(lights)]
                turn += 1
                percent = value[light["id"]] = 10 + (value[light["id"]] + 7) % 90
                wanted = percent * 254 / 100  # homegate rounds it
                arrived = arrivals.expect_mqtt(f"zigbee2mqtt/{light['id']}/set",
                                               lambda p, w=wanted: isinstance(p, dict) and abs(p.get("brightness", -9) - w) <= 0.5)
                started = time.perf_counter()
                if path == "mqtt":
                    await pub.publish(f"homegate/set/{light['id']}/lightbulb/brightness", str(percent))
                elif path == "matter":
                    await matter.SendCommand(node, light["endpoint"], level_control.Commands.MoveToLevel(
                        level=level_of(percent), transitionTime=0, optionsMask=0, optionsOverride=0))
                    samples["matter answered"].append(time.perf_counter() - started)
                else:
                    result = await writers[light["bridge"]].put_characteristics([(light["aid"], light["iid"], percent)])
                    samples["hap answered"].append(time.perf_counter() - started)
                    if result:
                        raise SystemExit(f"HAP write to {light['id']} refused: {result}")
                at = await hb.arrival(arrived, lost, path)
                if at is not None:
                    samples[path].append(at - started)
            await asyncio.sleep(random.uniform(0.5, 1.5) * args.gap / 1000)
    for key, values in samples.items():
        figures[f"write {key}"] = ms(values)
    figures["write lost"] = lost


async def events(args, figures, lights, bridges, connect, pub, arrivals, reports):
    """The device publishes a new brightness: the MQTT event, the Matter report and the HAP EVENT of
    that publish, under the background traffic; then isolated changes, each after a quiet second."""
    for index in range(len(bridges)):
        mine = [(light["aid"], light["iid"]) for light in lights if light["bridge"] == index]
        if mine:
            listener = connect(bridges[index])
            listener.dispatcher_connect(arrivals.hap_event)
            await listener.list_accessories_and_characteristics()
            await listener.subscribe(mine)
    await asyncio.sleep(1)
    percent = {light["id"]: 50 for light in lights}

    async def probe(light, samples, lost):
        p = percent[light["id"]] = 10 + (percent[light["id"]] + 13) % 90
        brightness = round(p * 254 / 100)
        mqtt = arrivals.expect_mqtt(f"homegate/event/{light['id']}/lightbulb/brightness",
                                    lambda body, p=p: isinstance(body, dict) and body.get("value") == p)
        matter = reports.expect(light["endpoint"], level_of(p))
        hap = arrivals.expect_hap((light["aid"], light["iid"]), p)
        started = time.perf_counter()
        await pub.publish(f"zigbee2mqtt/{light['id']}", json.dumps({"state": "ON", "brightness": brightness}))
        at = {}
        for path, future in (("mqtt", mqtt), ("matter", matter), ("hap", hap)):
            arrived = await hb.arrival(future, lost, path)
            if arrived is not None:
                samples[path].append(arrived - started)
                at[path] = arrived
        if "mqtt" in at and "matter" in at:
            samples["matter after mqtt"].append(at["matter"] - at["mqtt"])

    samples = {"mqtt": [], "matter": [], "hap": [], "matter after mqtt": [], "echo": []}
    lost = {}
    for n in range(args.events):
        await probe(lights[n % len(lights)], samples, lost)
        samples["echo"].append(await hb.echo_probe(pub, arrivals, f"e{n}"))
        await asyncio.sleep(random.uniform(0.5, 1.5) * args.gap / 1000)
    for key, values in samples.items():
        figures[f"event {key}"] = ms(values)
    figures["event lost"] = lost

    samples = {"mqtt": [], "matter": [], "hap": [], "matter after mqtt": []}
    lost = {}
    for n in range(args.isolated):
        await asyncio.sleep(1)
        await probe(lights[(n * 7) % len(lights)], samples, lost)
    for key, values in samples.items():
        figures[f"isolated {key}"] = ms(values)
    figures["isolated lost"] = lost


# --- report ---------------------------------------------------------------------------------------

def rows(f):
    """(label, number) for one run."""
    out = []

    def p50(key):
        return percentile(f[key], 0.5)

    def lat(label, key):
        out.append((f"{label} p50 (ms)", percentile(f[key], 0.5)))
        out.append((f"{label} p99 (ms)", percentile(f[key], 0.99)))

    lat("write, broker-only echo", "write echo")
    lat("write → /set, MQTT homegate/set", "write mqtt")
    lat("write → /set, Matter invoke (MoveToLevel)", "write matter")
    lat("write → /set, HAP PUT", "write hap")
    out.append(("Matter p50 − MQTT p50 (ms; target ≤ 2)", p50("write matter") - p50("write mqtt")))
    out.append(("HAP p50 − MQTT p50 (ms)", p50("write hap") - p50("write mqtt")))
    out.append(("MQTT p50 / echo p50", p50("write mqtt") / p50("write echo")))
    out.append(("Matter p50 / echo p50", p50("write matter") / p50("write echo")))
    out.append(("HAP p50 / echo p50", p50("write hap") / p50("write echo")))
    lat("Matter read of CurrentLevel, no house work (the controller's and the stack's floor)", "write matter read")
    out.append(("Matter invoke answered, p50 (ms)", p50("write matter answered")))
    out.append(("Matter invoke → /set p50 − read p50 (ms)", p50("write matter") - p50("write matter read")))
    out.append(("HAP PUT answered, p50 (ms)", p50("write hap answered")))
    lat("event, broker-only echo", "event echo")
    lat("device → homegate/event (MQTT)", "event mqtt")
    lat("device → Matter report", "event matter")
    lat("device → HAP EVENT", "event hap")
    lat("Matter report after the MQTT event, same publish", "event matter after mqtt")
    out.append(("MQTT event p50 / echo p50", p50("event mqtt") / p50("event echo")))
    out.append(("Matter report p50 / MQTT event p50", p50("event matter") / p50("event mqtt")))
    lat("isolated change → homegate/event (MQTT)", "isolated mqtt")
    lat("isolated change → Matter report", "isolated matter")
    lat("isolated change → HAP EVENT", "isolated hap")
    out.append(("isolated Matter report p50 / MQTT event p50", p50("isolated matter") / p50("isolated mqtt")))
    out.append(("commissioning from the QR code, discovery included (ms)", p50("commissioning")))
    out.append(("homegate RSS, no bridge (MB)", f["rss reference"]))
    out.append(("homegate RSS, both bridges, no controller (MB)", f["rss bridges"]))
    out.append(("homegate RSS, both bridges, controllers connected (MB)", f["rss controllers"]))
    out.append(("RSS ratio, both bridges / none (target ≤ 1.3)", f["rss bridges"] / f["rss reference"]))
    out.append(("RSS ratio, controllers connected / none", f["rss controllers"] / f["rss reference"]))
    out.append(("homegate peak RSS, no bridge (MB)", f["peak reference"]))
    out.append(("homegate peak RSS, both bridges (MB)", f["peak"]))
    out.append(("homegate CPU, no bridge (% of a core)", f["cpu reference"]))
    out.append(("homegate CPU, both bridges, no controller (% of a core)", f["cpu bridges"]))
    out.append(("homegate CPU, both bridges, controllers connected (% of a core)", f["cpu controllers"]))
    out.append(("background device messages (/s, measured)", f["background msg/s"]))
    return out


def summary(f):
    """One run's counts, losses and load, the line under the table."""
    return (f"{f['accessories']} accessories ({f['reference accessories']} without bridges), {f['hap bridges']} HomeKit "
            f"bridges, {f['matter endpoints']} Matter endpoints, {f['probe lights']} probe lights, {len(f['write echo'])} writes per "
            f"path, {len(f['event echo'])} events, {len(f['isolated mqtt'])} isolated changes; lost (not arrived within 2 s): "
            f"writes {f['write lost'] or 'none'}, events {f['event lost'] or 'none'}, isolated {f['isolated lost'] or 'none'}; "
            f"load average {f['load at start']} at start, {f['load at end']} at the end")


def report(all_figures, first=1):
    hb.report(all_figures, first, rows=rows, summary=summary)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-path", default=os.environ.get("HOMEGATE_BIN_PATH", str(ROOT / ".build" / "release")),
                        help="the folder with homegate, homegate-simulator and homegate-bench (default .build/release)")
    parser.add_argument("--runs", type=int, default=2, help="runs, each with a fresh house (default 2)")
    parser.add_argument("--devices", type=int, default=400, help="simulated devices (default 400)")
    parser.add_argument("--rate", type=int, default=2000, help="background device messages per second, at least 1 (default 2000)")
    parser.add_argument("--writes", type=int, default=200, help="write probes per path (default 200)")
    parser.add_argument("--events", type=int, default=100, help="event probes under the background traffic (default 100)")
    parser.add_argument("--isolated", type=int, default=20, help="isolated changes, each after a quiet second (default 20)")
    parser.add_argument("--window", type=float, default=10, help="seconds of each CPU and RSS window (default 10)")
    parser.add_argument("--gap", type=float, default=20, help="mean milliseconds between probes (default 20)")
    args = parser.parse_args()
    hb.check_prerequisites(args)
    network, reason = Network.make()
    if network is None:
        raise SystemExit(f"no network namespaces (root is needed): {reason}")
    stack = authorities = None
    try:
        network.enter_b()  # before the controller's stack starts, so its threads live in B
        import chip.CertificateAuthority
        import chip.native
        from chip.ChipStack import ChipStack
        import chip.logging
        chip.native.Init()
        chip.logging.SetLogFilter(chip.logging.LOG_CATEGORY_ERROR)  # its detail, printed, would be part of every timing
        storage = Path(network.dir) / "controller.json"
        stack = ChipStack(persistentStoragePath=str(storage), enableServerInteractions=False)
        authorities = chip.CertificateAuthority.CertificateAuthorityManager(chipStack=stack)
        fabric_admin = authorities.NewCertificateAuthority().NewFabricAdmin(vendorId=0xFFF1, fabricId=1)
        say(f"machine: {os.cpu_count()} cores, load average {load_average()}; {args.devices} devices, {args.rate} device messages/s "
            f"in the background, {args.runs} runs; the house in namespace {network.ns_a} ({ADDRESS_A}, {ADDRESS6_A}), "
            f"the controllers in {network.ns_b}")
        loop = asyncio.new_event_loop()
        results = []
        for number in range(1, args.runs + 1):
            figures = loop.run_until_complete(one_run(args, number, network, fabric_admin))
            results.append(figures)
            say()
            report([figures], first=number)
            say()
        if len(results) > 1:
            say(f"over {len(results)} runs:")
            report(results)
        loop.close()
    finally:
        if authorities is not None:
            authorities.Shutdown()
        if stack is not None:
            stack.Shutdown()
        network.close()


if __name__ == "__main__":
    main()
