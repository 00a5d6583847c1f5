"""A whole house for the bridge test: its own mosquitto on a free loopback port, the Zigbee2MQTT
simulator with the demo devices, and `homegate run` with the HomeKit bridge on a free loopback port.
Every process is ended by its PID."""

import json
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUP_CODE = "031-45-154"
START = 60  # seconds for processes to start (a debug build on a busy 2-core machine)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def free_port_pair() -> int:
    """A free port whose next one is free too."""
    for _ in range(50):
        port = free_port()
        if port < 65535:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                try:
                    probe.bind(("127.0.0.1", port + 1))
                    return port
                except OSError:
                    continue
    raise AssertionError("no two free ports in a row on 127.0.0.1")


def wait_until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def stop(process, name, timeout=15):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError(f"{name} (pid {process.pid}) did not stop within {timeout} s of SIGTERM")


def tail(path, lines=40):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class House:
    def __init__(self, bin_path: Path, workdir: Path):
        self.bin_path = bin_path
        self.workdir = workdir
        self.processes = {}
        self.mqtt_port = None
        self.http_port = None
        self.hap_port = None
        self.data = workdir / "homegate"
        self.data.mkdir(exist_ok=True)
        self.settings = {}  # more HOMEGATE_* variables for homegate (hap.include, hap.exclude)

    def start_mosquitto(self):
        for _ in range(3):
            port = free_port()
            conf = self.workdir / "mosquitto.conf"
            conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
            log = open(self.workdir / "mosquitto.log", "ab")
            process = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=log, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        self.processes["mosquitto"] = process
                        self.mqtt_port = port
                        return
                except OSError:
                    time.sleep(0.05)
            stop(process, "mosquitto")
        raise AssertionError(f"mosquitto did not start:\n{tail(self.workdir / 'mosquitto.log')}")

    def start_simulator(self):
        log = open(self.workdir / "simulator.log", "ab")
        self.processes["simulator"] = subprocess.Popen(
            [str(self.bin_path / "homegate-simulator"), "--url", f"mqtt://127.0.0.1:{self.mqtt_port}",
             "--devices", str(ROOT / "demo" / "devices.json"), "--groups", str(ROOT / "demo" / "groups.json"),
             "--sensor-interval", "0"],
            cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT)

    def environment(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_")}
        if self.hap_port is None:
            self.hap_port = free_port_pair()  # a second bridge takes the next port
        env.update({
            "HOMEGATE_MQTT_URL": f"mqtt://127.0.0.1:{self.mqtt_port}",
            "HOMEGATE_MAPPINGS": str(ROOT / "demo" / "mappings"),
            "HOMEGATE_DATABASE": str(self.data / "homegate.sqlite"),
            "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0",
            "HOMEGATE_HAP_ENABLED": "true",
            "HOMEGATE_HAP_BIND": "127.0.0.1",
            "HOMEGATE_HAP_PORT": str(self.hap_port),
            "HOMEGATE_HAP_NAME": "homegate test",
            "HOMEGATE_HAP_SETUP_CODE": SETUP_CODE,
        })
        env.update(self.settings)
        return env

    def start_gateway(self):
        log_path = self.workdir / "homegate.log"
        offset = log_path.stat().st_size if log_path.exists() else 0
        log = open(log_path, "ab")
        process = subprocess.Popen([str(self.bin_path / "homegate"), "run"], cwd=self.data, env=self.environment(),
                                   stdout=log, stderr=subprocess.STDOUT)
        self.processes["homegate"] = process

        def ready():
            if process.poll() is not None:
                raise AssertionError(f"homegate exited with {process.returncode}:\n{tail(log_path)}")
            text = log_path.read_bytes()[offset:].decode(errors="replace")
            http = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", text)
            return int(http.group(1)) if http and "HAP server listening" in text else None

        self.http_port = wait_until(ready, START, "homegate to listen for HTTP and HAP")
        self.log_offset = offset

    def log(self) -> str:
        """What the running homegate has logged since it started."""
        return (self.workdir / "homegate.log").read_bytes()[self.log_offset:].decode(errors="replace")

    def stop_gateway(self):
        stop(self.processes.pop("homegate"), "homegate")

    def stop_all(self):
        for name in ["homegate", "simulator", "mosquitto"]:
            if name in self.processes:
                stop(self.processes.pop(name), name)

    def pairing_infos(self) -> list:
        """`homegate hap pairing`, as a person runs it, parsed: one dict per bridge."""
        result = subprocess.run([str(self.bin_path / "homegate"), "hap", "pairing"], cwd=self.data, env=self.environment(),
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        bridges = [{}]
        for line in result.stdout.splitlines():
            if line.startswith("bridge ") and bridges[-1]:
                bridges.append({})
            if ":" in line and not line.startswith(" "):
                key, value = line.split(":", 1)
                bridges[-1][key.strip()] = value.strip()
        return bridges

    def pairing_info(self) -> dict:
        """The first bridge's."""
        return self.pairing_infos()[0]

    def api(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}{path}", timeout=10) as response:
            return json.loads(response.read())

    def accessories(self):
        return {a["id"]: a for a in self.api("/api/accessories")["accessories"]}

    def publish(self, topic, payload):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.mqtt_port), "-t", topic, "-m", payload],
                       check=True, timeout=10)

    def simulator(self, command, body):
        self.publish(f"zigbee2mqtt/bridge/request/simulator/{command}", json.dumps(body))

    def subscribe(self, topic):
        return Subscription(self.mqtt_port, topic)


class Subscription:
    """mosquitto_sub on one topic, ready once its subscription is acknowledged."""

    def __init__(self, port, topic):
        self.process = subprocess.Popen(
            ["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-v", "-d", "-W", "60"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.wait(lambda line: line.startswith("Subscribed"), "mosquitto_sub's SUBACK")

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait(self, predicate, what, timeout=10):
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"timed out waiting for {what}; mosquitto_sub said:\n" + "\n".join(seen))

    def message(self, topic, timeout=10):
        """The JSON payload of the next message on `topic`."""
        line = self.wait(lambda line: line.startswith(topic + " "), f"a message on {topic}", timeout)
        return json.loads(line[len(topic) + 1:])

    def close(self):
        stop(self.process, "mosquitto_sub")
