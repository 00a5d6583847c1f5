"""DNS-SD advertisement through avahi, proved between two network namespaces (issue 37, item 7).

    python3 mdns_test.py PROBE VENV_PYTHON

Namespace A holds a private D-Bus, avahi-daemon and homegate-dnssd-probe (the DNSSD module advertising
a fake HAP bridge); namespace B holds python-zeroconf. A veth pair with TEST-NET-1 addresses joins
them, so every multicast packet stays between the two: the host's interfaces, addresses, D-Bus and
avahi are never used. Daemons are ended by PID and the namespaces deleted by name, whatever happens.

The private bus: libdbus takes the system bus's address from DBUS_SYSTEM_BUS_ADDRESS, and both
avahi-daemon and libavahi-client reach the system bus through libdbus, so setting it for both is all it
takes (no bind mount over /run/dbus). avahi-daemon still gets a mount namespace of its own, for its
PID file in /run/avahi-daemon and for /etc/avahi/services, whose paths it does not let us change.

Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN for namespaces and mounts); without it the test is
skipped with the reason, and fails instead when HOMEGATE_MDNS_REQUIRED=1.
"""

import json
import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TYPE = "_hap._tcp"
ADDRESS_A, ADDRESS_B = "192.0.2.1", "192.0.2.2"  # RFC 5737 TEST-NET-1, only ever inside the namespaces
ADDRESS6_A, ADDRESS6_B = "2001:db8:4867::1", "2001:db8:4867::2"  # RFC 3849 documentation prefix, the same
NAME = "homegate mdns test"
TAKEN = "homegate taken"  # advertised from B first
PORT, SECOND_PORT, THIRD_PORT, B_PORT = 51826, 51827, 51828, 51900
WAIT = 30  # seconds for any one condition; each normally holds within one or two


class Skip(Exception):
    pass


class Failure(Exception):
    pass


def run(*command, check=True):
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise Failure(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()}")
    return result


class Process:
    """A process we started, its stdout read line by line on a thread, its stderr kept in a file."""

    def __init__(self, label, command, log_dir, env=None, stdin=False):
        self.label = label
        self.stderr_path = os.path.join(log_dir, f"{label}.stderr")
        self.stderr = open(self.stderr_path, "w")
        self.popen = subprocess.Popen(
            command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=self.stderr, text=True, env=env, start_new_session=True)
        self.lines = queue.Queue()
        self.history = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.popen.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        self.popen.stdin.write(line + "\n")
        self.popen.stdin.flush()

    def next_line(self, deadline, what):
        """The next line of stdout, or a Failure naming `what` at the deadline or at end of output."""
        remaining = deadline - time.monotonic()
        try:
            line = self.lines.get(timeout=max(0.0, remaining))
        except queue.Empty:
            raise Failure(f"{self.label}: no {what} within {WAIT} s; it said: {self.history[-6:]}") from None
        if line is None:
            raise Failure(f"{self.label} exited ({self.popen.wait()}) before {what}; stderr: {self.tail()}")
        self.history.append(line)
        return line

    def wait_json(self, what, condition, timeout=WAIT):
        deadline = time.monotonic() + timeout
        while True:
            line = self.next_line(deadline, what)
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if condition(value):
                return value

    def tail(self):
        self.stderr.flush()
        with open(self.stderr_path) as f:
            return f.read()[-2000:]

    def stop(self):
        """SIGTERM to our own PID, SIGKILL if it does not go within 5 s."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self.stderr.close()


class Harness:
    def __init__(self, probe, venv_python):
        self.probe = probe
        self.venv_python = venv_python
        suffix = secrets.token_hex(3)
        self.ns_a, self.ns_b = f"hgmdns-a-{suffix}", f"hgmdns-b-{suffix}"
        self.veth_a, self.veth_b = f"hgva{suffix}", f"hgvb{suffix}"  # 10 characters, under IFNAMSIZ
        self.host_name = f"hgmdns-{suffix}"
        self.dir = tempfile.mkdtemp(prefix=f"hgmdns-{suffix}-")
        self.bus_socket = os.path.join(self.dir, "system_bus_socket")
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={self.bus_socket}")
        self.namespaces = []
        self.processes = []
        self.avahi = None
        self.bus = None
        self.passed = 0
        self.ipv6 = False  # IPv6 addresses on the veth pair too, and avahi-daemon using them

    def check(self, what, condition, detail=""):
        if not condition:
            raise Failure(f"{what}: {detail}")
        self.passed += 1
        print(f"ok {self.passed} - {what}", flush=True)

    # Set-up

    def make_namespaces(self):
        for ns in (self.ns_a, self.ns_b):
            result = run("ip", "netns", "add", ns, check=False)
            if result.returncode != 0:
                raise Skip(f"cannot create a network namespace (needs root with CAP_NET_ADMIN and CAP_SYS_ADMIN): {result.stderr.strip()}")
            self.namespaces.append(ns)
        # Made inside A with its peer sent straight to B: the pair never exists in the host's namespace.
        run("ip", "-n", self.ns_a, "link", "add", self.veth_a, "type", "veth", "peer", "name", self.veth_b, "netns", self.ns_b)
        for ns, veth, address in ((self.ns_a, self.veth_a, ADDRESS_A), (self.ns_b, self.veth_b, ADDRESS_B)):
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", veth)
            run("ip", "-n", ns, "link", "set", veth, "up")
            # mDNS goes to 224.0.0.251; with no default route in the namespace it needs one of its own.
            run("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", veth)
        if self.ipv6:
            for ns, veth, address in ((self.ns_a, self.veth_a, ADDRESS6_A), (self.ns_b, self.veth_b, ADDRESS6_B)):
                # nodad: usable at once, not tentative for a second (the link-local ones may still be).
                run("ip", "-n", ns, "addr", "add", f"{address}/64", "dev", veth, "nodad")
        for ns, veth in ((self.ns_a, self.veth_a), (self.ns_b, self.veth_b)):
            self.wait_until(f"{veth} up in {ns}", lambda: self.link_up(ns, veth))

    def link_up(self, ns, veth):
        links = json.loads(run("ip", "-n", ns, "-j", "link", "show", veth).stdout)
        return links and links[0].get("operstate") == "UP"

    def wait_until(self, what, condition, timeout=WAIT):
        """Polls a cheap local condition (a link state) that has no event to wait on."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise Failure(f"{what}: not within {timeout} s")
            time.sleep(0.05)

    def start(self, label, command, ns, stdin=False, env=None):
        """Starts `command` in namespace `ns` (None: where we are, for what needs no network)."""
        prefix = ["ip", "netns", "exec", ns] if ns else []
        process = Process(label, [*prefix, *command], self.dir, env=env or self.env, stdin=stdin)
        self.processes.append(process)
        return process

    def start_bus(self):
        config = os.path.join(self.dir, "bus.conf")
        with open(config, "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={self.bus_socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
""")
        self.bus = bus = self.start("dbus-daemon", ["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address=1"], self.ns_a)
        # It prints its address once it listens.
        bus.next_line(time.monotonic() + WAIT, "bus address")

    def start_avahi(self):
        config = os.path.join(self.dir, "avahi-daemon.conf")
        with open(config, "w") as f:
            f.write(f"""[server]
host-name={self.host_name}
domain-name=local
use-ipv4=yes
use-ipv6={"yes" if self.ipv6 else "no"}
allow-interfaces={self.veth_a}
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
[reflector]
enable-reflector=no
[rlimits]
""")
        empty = os.path.join(self.dir, "services")
        os.makedirs(empty, exist_ok=True)
        # avahi-daemon keeps its PID file and socket in /run/avahi-daemon and reads static services
        # from /etc/avahi/services, neither of which it lets us move: a mount namespace of its own gives
        # it an empty /run (so it cannot meet the host's bus or daemon either) and no static services.
        # Each step execs the next, so the PID we hold is avahi-daemon's.
        script = (f"mount -t tmpfs -o mode=0755 hgmdns /run && mkdir /run/avahi-daemon && "
                  f"mount --bind {empty} /etc/avahi/services && "
                  f"exec avahi-daemon -f {config} --no-drop-root --no-chroot --no-rlimits --no-proc-title")
        self.avahi = self.start("avahi-daemon", ["unshare", "--mount", "--propagation", "private", "sh", "-c", script], self.ns_a)

    def stop_avahi(self):
        self.avahi.stop()
        self.processes.remove(self.avahi)
        self.avahi = None

    def stop_bus(self):
        self.bus.stop()
        self.processes.remove(self.bus)
        self.bus = None

    def start_probe(self, label, port, ns, env=None, options=(), name=NAME):
        txt = self.txt()
        command = [self.probe, "--name", name, "--type", TYPE, "--port", str(port), *options]
        for key, value in txt.items():
            command += ["--txt", f"{key}={value}"]
        return self.start(label, command, ns, stdin=True, env=env)

    @staticmethod
    def txt(**changes):
        # What a fresh, unpaired bridge advertises (hap-bridge.md 1.1).
        txt = {"c#": "1", "ff": "0", "id": "0E:12:34:56:78:9A", "md": "homegate", "pv": "1.1", "s#": "1", "sf": "1", "ci": "2", "sh": "dGVzdA=="}
        txt.update({key.replace("_", "#"): value for key, value in changes.items()})
        return txt

    def ask(self, resolver, command):
        resolver.send(json.dumps(command))
        return resolver.wait_json(f"an answer to {command['cmd']} {command['name']!r}", lambda value: "ok" in value, timeout=command["timeout"] + 10)

    def teardown(self):
        for process in reversed(self.processes):
            process.stop()
        for ns in self.namespaces:
            run("ip", "netns", "del", ns, check=False)  # takes the veth pair with it
        shutil.rmtree(self.dir, ignore_errors=True)

    # The test

    def test_without_bus(self):
        """1. No bus at all. Needs no root and no network: runs even where the rest is skipped."""
        nowhere = dict(self.env, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={self.dir}/no-bus-here")
        lonely = self.start_probe("probe-no-bus", PORT, None, env=nowhere)
        state = lonely.wait_json("a state", lambda v: v.get("state") == "notAdvertised")
        self.check("no system D-Bus: not advertised, with the socket and the reason",
                   f"avahi-daemon is not reachable at {self.dir}/no-bus-here (no such socket" in state["description"]
                   and state["description"].endswith("controllers that know the address can still pair"), state)
        print(f"     {state['description']}", flush=True)
        lonely.send("txt c#=2")
        update = lonely.wait_json("the TXT update", lambda v: v.get("event") == "txt")
        self.check("a TXT update without a daemon is kept for the next registration", update["result"] == "keptForNextRegistration", update)
        lonely.send("stop")
        lonely.wait_json("stopped", lambda v: v.get("state") == "stopped")
        self.check("stop() without ever reaching a daemon ends cleanly", lonely.popen.wait(WAIT) == 0, lonely.tail())

    def test(self):
        self.make_namespaces()

        # 2. A bus but no avahi-daemon yet: waiting for it, and advertised once it starts.
        self.start_bus()
        first = self.start_probe("probe", PORT, self.ns_a)
        state = first.wait_json("a state", lambda v: v.get("state") == "notAdvertised")
        self.check("D-Bus without avahi-daemon: not advertised, waiting for the daemon",
                   "no avahi-daemon is on it" in state["reason"], state)
        print(f"     {state['description']}", flush=True)
        self.start_avahi()
        state = first.wait_json("advertised", lambda v: v.get("state") == "advertised")
        self.check("advertised once avahi-daemon starts", state["name"] == NAME and state["renamedFrom"] is None, state)

        # 3. Found from namespace B with its port, its address and every TXT record.
        resolver = self.start("resolver", [self.venv_python, os.path.join(HERE, "resolve.py"), ADDRESS_B, f"{TYPE}.local."], self.ns_b, stdin=True)
        resolver.wait_json("ready", lambda v: v.get("ready"))
        answer = self.ask(resolver, {"cmd": "expect", "name": NAME, "port": PORT, "txt": self.txt(), "address": ADDRESS_A, "timeout": WAIT})
        self.check("zeroconf in B resolves the instance: SRV port, A address, TXT c#, ff, id, md, pv, s#, sf, ci, sh",
                   answer["ok"], answer)
        print(f"     seen from B: {json.dumps(answer['seen'], sort_keys=True)}", flush=True)

        # 4. c# and sf change in place: B sees the new TXT and never a withdrawal.
        first.send("txt c#=2 sf=0")
        update = first.wait_json("the TXT update", lambda v: v.get("event") == "txt")
        self.check("the probe's TXT update went to avahi in place", update["result"] == "updatedInPlace", update)
        updated = self.txt(c_="2", sf="0")
        answer = self.ask(resolver, {"cmd": "expect", "name": NAME, "port": PORT, "txt": updated, "address": ADDRESS_A, "timeout": WAIT})
        removed = [event for event in answer["events"] if event[0] == "Removed"]
        self.check("B sees c#=2 and sf=0 without the instance being withdrawn", answer["ok"] and not removed, answer)

        # 5. The same name again on the same daemon: avahi's alternative, reported, and found by B.
        # This one runs as a swift-service-lifecycle Service in a ServiceGroup, as homegate will run it.
        second = self.start_probe("probe-2", SECOND_PORT, self.ns_a, options=["--service-group"])
        state = second.wait_json("advertised", lambda v: v.get("state") == "advertised")
        self.check("a second service with the name takes avahi's alternative and says so",
                   state["name"] == f"{NAME} #2" and state["renamedFrom"] == NAME, state)
        answer = self.ask(resolver, {"cmd": "expect", "name": f"{NAME} #2", "port": SECOND_PORT, "txt": self.txt(), "address": ADDRESS_A, "timeout": WAIT})
        self.check("B resolves the renamed instance on its own port", answer["ok"], answer)

        # 5b. A name another host holds: avahi's probe meets B's answer (a group COLLISION, unlike
        # the local one above), and the probe takes avahi's alternative.
        answer = self.ask(resolver, {"cmd": "register", "name": TAKEN, "port": B_PORT, "timeout": WAIT})
        self.check(f"B advertises {TAKEN!r} itself", answer["ok"], answer)
        third = self.start_probe("probe-3", THIRD_PORT, self.ns_a, name=TAKEN)
        state = third.wait_json("advertised", lambda v: v.get("state") == "advertised")
        self.check("a name held by another host on the network: renamed to avahi's alternative and reported",
                   state["name"] == f"{TAKEN} #2" and state["renamedFrom"] == TAKEN, state)
        answer = self.ask(resolver, {"cmd": "expect", "name": f"{TAKEN} #2", "port": THIRD_PORT, "txt": self.txt(), "address": ADDRESS_A, "timeout": WAIT})
        self.check("B resolves A's renamed instance", answer["ok"], answer)
        third.send("stop")
        third.wait_json("stopped", lambda v: v.get("state") == "stopped")

        # 6. avahi-daemon restarts: both say why they are not advertised, then come back as they were.
        self.stop_avahi()
        for probe in (first, second):
            state = probe.wait_json("not advertised", lambda v: v.get("state") == "notAdvertised")
            self.check(f"{probe.label}: not advertised while avahi-daemon is away",
                       "avahi-daemon is not reachable" in state["reason"], state)
        self.start_avahi()
        state = first.wait_json("advertised", lambda v: v.get("state") == "advertised")
        self.check("re-registered after the daemon restart, under the same name", state["name"] == NAME, state)
        state = second.wait_json("advertised", lambda v: v.get("state") == "advertised")
        self.check("the renamed one keeps its name across the restart", state["name"] == f"{NAME} #2", state)
        answer = self.ask(resolver, {"cmd": "expect", "name": NAME, "port": PORT, "txt": updated, "address": ADDRESS_A, "timeout": WAIT})
        self.check("B resolves it again with the TXT of the last update", answer["ok"], answer)

        # 6b. The system D-Bus goes too: the reason names the socket, and the advertiser, retrying on
        # its own, comes back once bus and daemon are up again.
        self.stop_avahi()
        self.stop_bus()
        state = first.wait_json("no bus", lambda v: v.get("state") == "notAdvertised" and "system D-Bus" in v["reason"] and "answers" not in v["reason"])
        self.check("bus gone: not advertised, naming the socket and why",
                   f"avahi-daemon is not reachable at {self.bus_socket} (" in state["reason"], state)
        print(f"     {state['description']}", flush=True)
        self.start_bus()
        self.start_avahi()
        state = first.wait_json("advertised", lambda v: v.get("state") == "advertised")
        self.check("advertised again after the bus and the daemon restart, under the same name", state["name"] == NAME, state)
        answer = self.ask(resolver, {"cmd": "expect", "name": NAME, "port": PORT, "txt": updated, "address": ADDRESS_A, "timeout": WAIT})
        self.check("B resolves it after the bus restart", answer["ok"], answer)

        # 7. stop() withdraws: B gets the goodbye.
        first.send("stop")
        first.wait_json("stopped", lambda v: v.get("state") == "stopped")
        self.check("the probe exits after stop", first.popen.wait(WAIT) == 0, first.tail())
        answer = self.ask(resolver, {"cmd": "gone", "name": NAME, "timeout": WAIT})
        self.check("B sees the instance withdrawn after stop()", answer["ok"], answer)

        # 8. SIGTERM shuts the ServiceGroup down gracefully: the Service withdraws on its way out.
        second.popen.send_signal(signal.SIGTERM)
        second.wait_json("stopped", lambda v: v.get("state") == "stopped")
        self.check("SIGTERM: the ServiceGroup ends and the probe exits 0", second.popen.wait(WAIT) == 0, second.tail())
        answer = self.ask(resolver, {"cmd": "gone", "name": f"{NAME} #2", "timeout": WAIT})
        self.check("B sees the renamed instance withdrawn after the graceful shutdown", answer["ok"], answer)


def main():
    probe, venv_python = sys.argv[1], sys.argv[2]
    required = os.environ.get("HOMEGATE_MDNS_REQUIRED") == "1"
    harness = Harness(probe, venv_python)
    try:
        harness.test_without_bus()
        if os.geteuid() != 0:
            raise Skip("not root: network namespaces, veth pairs and mounts need CAP_NET_ADMIN and CAP_SYS_ADMIN")
        for tool in ("ip", "unshare", "dbus-daemon", "avahi-daemon"):
            if shutil.which(tool) is None:
                raise Skip(f"{tool} is not installed (scripts/install-mdns-deps.sh installs it)")
        harness.test()
    except Skip as skip:
        print(f"mdns: the namespace part is SKIPPED: {skip}", flush=True)
        print(f"mdns: {harness.passed} passed, {1 if required else 0} failed, 1 skipped", flush=True)
        return 1 if required else 0
    except Failure as failure:
        print(f"not ok {harness.passed + 1} - {failure}", flush=True)
        for process in harness.processes:
            print(f"--- {process.label} (pid {process.popen.pid}) stdout: {process.history[-8:]}\n    stderr: {process.tail()}", flush=True)
        print(f"mdns: {harness.passed} passed, 1 failed", flush=True)
        return 1
    finally:
        harness.teardown()
    print(f"mdns: {harness.passed} passed, 0 failed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
