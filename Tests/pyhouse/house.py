"""A house for the Python tests: a private Mosquitto on a free loopback port, the Zigbee2MQTT
simulator with the demo devices, and `homegate run` with a fresh database, each process logging to a
file of its own in the house's folder and ended by its PID. Standard library only, so that every
suite's virtual environment (and the plain python3 of the scripts) can import it.

    from pyhouse.house import House
    with House(bin_path, "browser") as house:
        house.start_mosquitto()
        house.start_simulator()
        gateway = house.start_gateway(env={"HOMEGATE_HTTP_TOKEN": "t"})
        house.api("GET", "/api/accessories", token="t")

Under pytest, pyhouse.plugin shows the logs of every house that ran during a failed test.
"""

import json
import os
import pwd
import queue
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START = 60  # seconds for a process to start (a debug build on a busy 2-core machine)
LIVE: list = []  # every house with processes started, for the failure report (pyhouse.plugin)


def free_port(host: str = "127.0.0.1", kind: int = socket.SOCK_STREAM) -> int:
    """A port free on `host` now (IPv6 when `host` has a colon); whoever binds it next may still race us."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, kind) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def free_port_pair(host: str = "127.0.0.1") -> int:
    """A free port whose next one is free too."""
    for _ in range(50):
        port = free_port(host)
        if port < 65535:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                try:
                    probe.bind((host, port + 1))
                    return port
                except OSError:
                    continue
    raise AssertionError(f"no two free ports in a row on {host}")


def wait_until(condition, timeout: float, what: str, interval: float = 0.05):
    """Polls `condition` until it returns something truthy, and returns that. An AssertionError from
    it fails at once (a process died); any other error means "not yet", and is named at the deadline."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except AssertionError:
            raise
        except Exception as error:  # noqa: BLE001 - kept for the failure message
            last_error = error
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}" + (f" (last error: {last_error!r})" if last_error else ""))


def stop(process: subprocess.Popen, name: str, timeout: float = 15, backtraces=None) -> None:
    """Ends a process we started, by its PID: SIGTERM, then SIGKILL after `timeout` seconds, which
    is a failure (homegate and its peers stop gracefully on SIGTERM). With `backtraces` (a folder),
    every thread's stack of a process that would not stop is kept there first."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        if backtraces and shutil.which("gdb"):
            Path(backtraces).mkdir(parents=True, exist_ok=True)
            with open(Path(backtraces) / f"{name}-{process.pid}-stuck.txt", "w") as out:
                subprocess.run(["gdb", "-p", str(process.pid), "-batch", "-ex", "thread apply all bt 30"],
                               stdout=out, stderr=subprocess.STDOUT, timeout=60, check=False)
        process.kill()
        process.wait()
        raise AssertionError(f"{name} (pid {process.pid}) did not stop within {timeout} s of SIGTERM") from None


def tail(path, lines: int = 40) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class Processes:
    """Processes a test started, each logging to FOLDER/NAME.log, stopped by PID in reverse order.
    `prefix` runs each command through another (`ip netns exec NS`); `env` is the base environment."""

    def __init__(self, workdir=None, name: str = "house", prefix=(), env=None):
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix=f"homegate-{name}-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.prefix = list(prefix)
        self.env = dict(os.environ if env is None else env)
        self.running: list = []  # (name, Popen)
        self.logs: list = []  # every log file written, in the order of starting
        self.stopped_at = None  # time.time() of the last stop_all, for the failure report
        self.backtraces = None  # a folder for the stacks of a process that will not stop (stop())

    def start(self, name: str, argv, env=None, cwd=None, stdin=subprocess.DEVNULL) -> subprocess.Popen:
        log_path = self.workdir / f"{name}.log"
        if log_path not in self.logs:
            self.logs.append(log_path)
        with open(log_path, "ab") as log:
            process = subprocess.Popen([*self.prefix, *map(str, argv)], stdout=log, stderr=subprocess.STDOUT, stdin=stdin,
                                       env=self.env if env is None else env, cwd=cwd)
        self.running.append((name, process))
        self.stopped_at = None
        if self not in LIVE:
            LIVE.append(self)
        return process

    def process(self, name: str) -> subprocess.Popen:
        return next(process for running, process in self.running if running == name)

    def stop(self, name: str, timeout: float = 15) -> None:
        process = self.process(name)
        self.running.remove((name, process))
        stop(process, name, timeout, self.backtraces)

    def stop_all(self) -> None:
        """Stops everything (each process even when one fails to), then reports the first failure."""
        failures = []
        for name, process in reversed(self.running):
            try:
                stop(process, name, backtraces=self.backtraces)
            except AssertionError as failure:
                failures.append(failure)
        self.running.clear()
        self.stopped_at = time.time()
        if failures:
            raise failures[0]

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def report(self, lines: int = 40) -> str:
        """The end of every log, for a failure message."""
        return "\n".join(f"---- {path} (last {lines} lines)\n{tail(path, lines)}" for path in self.logs)

    def remove(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *failure):
        self.stop_all()


class Gateway:
    """One `homegate run` of a house, ready: its process, its HTTP port, its log since it started."""

    def __init__(self, name: str, process: subprocess.Popen, log_path: Path, offset: int, data: Path, env: dict):
        self.name, self.process, self.log_path, self.offset, self.data, self.env = name, process, log_path, offset, data, env
        self.http_port = None

    def log(self) -> str:
        return self.log_path.read_bytes()[self.offset:].decode(errors="replace")

    def ready(self, *said: str):
        """The HTTP port once the log says it listens and says each of `said`; fails if it exited."""
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited with {self.process.returncode}:\n{tail(self.log_path)}")
        text = self.log()
        found = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", text)
        return int(found.group(1)) if found and all(s in text for s in said) else None


class House(Processes):
    """Mosquitto, the simulator and homegate."""

    def __init__(self, bin_path, workdir=None, name: str = "house", prefix=(), env=None):
        super().__init__(workdir, name, prefix, env)
        self.bin_path = Path(bin_path).resolve()
        self.mqtt_port = None
        self.http_port = None  # the first gateway's
        self.gateways: dict = {}

    # Starting

    def start_mosquitto(self, port: int = 0, conf: str = "", name: str = "mosquitto") -> int:
        """Mosquitto on 127.0.0.1: on `port`, or on a free one (another when the one probed is taken
        by the time it binds). Ready once it answers a subscription."""
        for _ in range(1 if port else 3):
            listen = port or free_port()
            path = self.workdir / f"{name}.conf"
            user = pwd.getpwuid(os.getuid()).pw_name  # as root, Mosquitto would switch to its own user
            path.write_text(f"listener {listen} 127.0.0.1\nallow_anonymous true\npersistence false\nuser {user}\n{conf}\n")
            process = self.start(name, ["mosquitto", "-c", path])
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and process.poll() is None:
                if self._answers(listen):
                    self.mqtt_port = listen
                    return listen
                time.sleep(0.05)
            self.stop(name)  # the port was taken meanwhile, or it did not start: try another
        raise AssertionError(f"mosquitto did not start:\n{tail(self.workdir / f'{name}.log')}")

    def _answers(self, port: int) -> bool:
        if not self.prefix:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return True
            except OSError:
                return False
        probe = [*self.prefix, "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "$SYS/broker/uptime", "-C", "1", "-W", "2"]
        return subprocess.run(probe, capture_output=True, env=self.env, timeout=10).returncode == 0

    def start_simulator(self, *arguments: str, sensor_interval="0", groups: bool = True, name: str = "simulator"):
        """The simulator serving demo/devices.json (and demo/groups.json); no readings of its own by
        default: the tests make every change they look for."""
        argv = [self.bin_path / "homegate-simulator", "--url", f"mqtt://127.0.0.1:{self.mqtt_port}",
                "--devices", ROOT / "demo" / "devices.json", "--sensor-interval", str(sensor_interval)]
        if groups:
            argv += ["--groups", ROOT / "demo" / "groups.json"]
        return self.start(name, [*argv, *arguments], cwd=self.workdir)

    def environment(self, name: str = "homegate", extra=None) -> dict:
        """The environment of a gateway: the base one without HOMEGATE_* variables, then the house's."""
        data = self.workdir / name
        data.mkdir(exist_ok=True)
        env = {k: v for k, v in self.env.items() if not k.startswith("HOMEGATE_")}
        env.update({
            "HOMEGATE_MQTT_URL": f"mqtt://127.0.0.1:{self.mqtt_port}",
            "HOMEGATE_MAPPINGS": str(ROOT / "demo" / "mappings"),
            "HOMEGATE_DATABASE": str(data / "homegate.sqlite"),
            "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0",
            "HOMEGATE_HTTP_WEB_ROOT": str(ROOT / "web"),
        })
        env.update(extra or {})
        return env

    def start_gateway(self, name: str = "homegate", env=None, cwd=None, ready=(), timeout: float = START) -> Gateway:
        """`homegate run` in its own data folder (FOLDER/NAME, its database there), with `env` over
        environment(); ready once its log says it listens for HTTP and says each of `ready`."""
        full = self.environment(name, env)
        log_path = self.workdir / f"{name}.log"
        offset = log_path.stat().st_size if log_path.exists() else 0
        data = self.workdir / name
        process = self.start(name, [self.bin_path / "homegate", "run"], env=full, cwd=cwd or data)
        gateway = Gateway(name, process, log_path, offset, data, full)
        said = " and ".join(["listening on http://127.0.0.1:<port>/", *ready])
        gateway.http_port = wait_until(lambda: gateway.ready(*ready), timeout, f"{name} to log {said}")
        self.gateways[name] = gateway
        if self.http_port is None or name == "homegate":
            self.http_port = gateway.http_port
        return gateway

    def stop_gateway(self, name: str = "homegate") -> None:
        self.gateways.pop(name, None)
        self.stop(name)

    def log(self, name: str = "homegate") -> str:
        """What gateway `name` has logged since it started (its whole log once stopped); any other process's log."""
        return self.gateways[name].log() if name in self.gateways else super().log(name)

    def run_homegate(self, *arguments: str, name: str = "homegate", env=None, timeout: float = 60) -> subprocess.CompletedProcess:
        """A `homegate` command as a person runs it beside gateway `name`, with its settings."""
        gateway = self.gateways.get(name)
        return subprocess.run([*self.prefix, str(self.bin_path / "homegate"), *arguments], cwd=self.workdir / name,
                              env=env or (gateway.env if gateway else self.environment(name)), capture_output=True, text=True,
                              timeout=timeout)

    # Talking to it

    def request(self, method: str, path: str, body=None, port=None, token=None):
        """(status, JSON body) of one HTTP API call to the first gateway, or the one on `port`."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{port or self.http_port}{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def accessories(self, port=None, token=None) -> dict:
        """/api/accessories by id."""
        status, tree = self.request("GET", "/api/accessories", port=port, token=token)
        if status != 200:
            raise RuntimeError(f"GET /api/accessories answered {status}: {tree}")
        return {a["id"]: a for a in tree["accessories"]}

    def value(self, path: str, port=None, token=None):
        """The value of `accessory/service/characteristic` as /api/accessories shows it."""
        accessory_id, service_id, characteristic = path.split("/")
        service = next(s for s in self.accessories(port, token)[accessory_id]["services"] if s["id"] == service_id)
        return next(c for c in service["characteristics"] if c["type"] == characteristic)["value"]

    def publish(self, topic: str, payload: str) -> None:
        subprocess.run([*self.prefix, "mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.mqtt_port), "-t", topic, "-m", payload],
                       check=True, timeout=10)

    def simulator(self, command: str, body: dict) -> None:
        """A request the simulator takes on its bridge's request topic (Sources/Simulator)."""
        self.publish(f"zigbee2mqtt/bridge/request/simulator/{command}", json.dumps(body))

    def subscribe(self, topic: str, count=None, timeout: float = 60, wait: float = 10) -> "Subscription":
        return Subscription(self.mqtt_port, topic, count, timeout, self.prefix, wait)


class Subscription:
    """mosquitto_sub on one topic (`-v`: topic, space, payload), ready once its subscription is acknowledged."""

    def __init__(self, port: int, topic: str, count=None, timeout: float = 60, prefix=(), wait: float = 10):
        self.default_wait = wait
        argv = ["stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-v", "-d", "-W", str(int(timeout))]
        self.count = count
        if count:
            argv += ["-C", str(count)]
        self.process = subprocess.Popen([*prefix, *argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait(lambda line: line.startswith("Subscribed"), "mosquitto_sub's SUBACK")

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait(self, predicate, what: str, timeout=None) -> str:
        deadline = time.monotonic() + (timeout or self.default_wait)
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"timed out waiting for {what}; mosquitto_sub said:\n" + "\n".join(self.seen[-20:]))

    def message(self, topic: str = "", timeout=None):
        """The JSON payload of the next message on `topic` (any topic when empty)."""
        def wanted(line):  # -d adds lines of its own, each starting "Client " or "Subscribed"
            return not line.startswith(("Client ", "Subscribed")) and line.startswith(topic + " " if topic else "")

        line = self.wait(wanted, f"a message on {topic or 'the topic'}", timeout)
        return json.loads(line.split(" ", 1)[1])

    def close(self):
        if self.count and len([line for line in self.seen if not line.startswith(("Client ", "Subscribed"))]) >= self.count:
            # It ends by itself after its messages (once, a SIGTERM while it disconnected left it running).
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        stop(self.process, "mosquitto_sub")
