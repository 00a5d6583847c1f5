"""Two network namespaces joined by a veth pair, for what loopback cannot do: the Matter SDK's
controller finds a node operationally over mDNS, and its minimal mDNS skips loopback interfaces.

Namespace A holds a private D-Bus, avahi-daemon and matter-demo (which advertises through avahi, as
homegate's HomeKit bridge does); namespace B holds this test process itself (it enters B before the
controller's stack starts, so the controller's threads live there). IPv6 ULA addresses (and IPv4
ones) on the pair keep every packet between the two. Processes are ended by PID and the namespaces
deleted by name, whatever happens. Needs root; `Network.make()` returns None with the reason otherwise.
Tests/mdns/mdns_test.py explains the private bus and avahi's own mount namespace.
"""

import ctypes
import json
import os
import secrets
import signal
import subprocess
import tempfile
import time

ADDRESS6_A, ADDRESS6_B = "fd6d:7472::1", "fd6d:7472::2"  # a ULA prefix, only ever inside the namespaces
ADDRESS_A, ADDRESS_B = "192.0.2.1", "192.0.2.2"  # RFC 5737 TEST-NET-1, the same
CLONE_NEWNET = 0x40000000


def run(*command, check=True):
    result = subprocess.run(command, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: {result.stderr.strip()}")
    return result


class Network:
    def __init__(self):
        suffix = secrets.token_hex(3)
        self.ns_a, self.ns_b = f"hgmt-a-{suffix}", f"hgmt-b-{suffix}"
        self.veth_a, self.veth_b = f"hgma{suffix}", f"hgmb{suffix}"
        self.dir = tempfile.mkdtemp(prefix=f"hgmt-{suffix}-")
        self.bus_socket = os.path.join(self.dir, "system_bus_socket")
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={self.bus_socket}")
        self.namespaces = []
        self.processes = []
        self.reason = None

    @classmethod
    def make(cls):
        """The two namespaces with avahi running in A, or the reason they cannot be made."""
        network = cls()
        try:
            network.make_namespaces()
            network.start_bus()
            network.start_avahi()
        except Exception as error:  # noqa: BLE001: any failure here means "no namespaces", said why
            network.close()
            return None, f"{error}"
        return network, None

    def make_namespaces(self):
        for ns in (self.ns_a, self.ns_b):
            run("ip", "netns", "add", ns)
            self.namespaces.append(ns)
        run("ip", "-n", self.ns_a, "link", "add", self.veth_a, "type", "veth", "peer", "name", self.veth_b, "netns", self.ns_b)
        for ns, veth, address, address6 in ((self.ns_a, self.veth_a, ADDRESS_A, ADDRESS6_A), (self.ns_b, self.veth_b, ADDRESS_B, ADDRESS6_B)):
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", veth)
            run("ip", "-n", ns, "addr", "add", f"{address6}/64", "dev", veth, "nodad")
            run("ip", "-n", ns, "link", "set", veth, "up")
            run("ip", "-n", ns, "route", "add", "224.0.0.0/4", "dev", veth)
        # Tentative addresses (the link-local ones during DAD) are ignored by both mDNS stacks: wait them out.
        deadline = time.monotonic() + 30
        for ns, veth in ((self.ns_a, self.veth_a), (self.ns_b, self.veth_b)):
            while True:
                link = json.loads(run("ip", "-n", ns, "-j", "link", "show", veth).stdout)
                tentative = run("ip", "-n", ns, "-6", "addr", "show", "dev", veth, "tentative").stdout.strip()
                if link and link[0].get("operstate") == "UP" and not tentative:
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{veth} in {ns} not up with settled addresses within 30 s")
                time.sleep(0.05)

    def start(self, command, ns, stdout=subprocess.DEVNULL, stderr=None):
        process = subprocess.Popen(
            ["ip", "netns", "exec", ns, *command], stdout=stdout, stderr=stderr or subprocess.DEVNULL, env=self.env,
            start_new_session=True, text=True)
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
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
""")
        bus = self.start(["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address=1"], self.ns_a,
                         stdout=subprocess.PIPE)
        bus.stdout.readline()  # it prints its address once it listens

    def start_avahi(self):
        config = os.path.join(self.dir, "avahi-daemon.conf")
        with open(config, "w") as f:
            f.write(f"""[server]
host-name=hgmt-{self.ns_a[-6:]}
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces={self.veth_a}
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
""")
        empty = os.path.join(self.dir, "services")
        os.makedirs(empty, exist_ok=True)
        script = (f"mount -t tmpfs -o mode=0755 hgmt /run && mkdir /run/avahi-daemon && "
                  f"mount --bind {empty} /etc/avahi/services && "
                  f"exec avahi-daemon -f {config} --no-drop-root --no-chroot --no-rlimits --no-proc-title")
        self.avahi_log = open(os.path.join(self.dir, "avahi.log"), "w")
        self.start(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], self.ns_a, stderr=self.avahi_log)

    def enter_b(self):
        """Moves this process's (main) thread into namespace B; threads started later follow it."""
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        with open(f"/var/run/netns/{self.ns_b}") as ns:
            if libc.setns(ns.fileno(), CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns into namespace B failed")

    def close(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        for ns in self.namespaces:
            run("ip", "netns", "delete", ns, check=False)
