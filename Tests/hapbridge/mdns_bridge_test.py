"""homegate's HomeKit bridge found by DNS-SD, between two network namespaces (issue 37, test plan B).

    python3 mdns_bridge_test.py BIN_PATH VENV_PYTHON

The namespaces, private D-Bus and avahi-daemon are Tests/mdns/mdns_test.py's (its Harness). In
namespace A: mosquitto, the Zigbee2MQTT simulator and homegate with the bridge on its default
address (both stacks), avahi-daemon publishing IPv4 and IPv6 addresses; in B,
Tests/hapbridge/mdns_client.py: python-zeroconf finds the bridge with its TXT record (c#, ff, id,
md, pv, s#, sf, ci, sh), every address advertised (IPv4 and IPv6) accepts a TCP
connection on the bridge's port, aiohomekit pairs at the advertised IPv4 address, sf flips to 0
in place, and after `homegate hap reset --identity` the bridge is advertised with its new device
id, unpaired. Needs root; skipped with the reason otherwise (HOMEGATE_MDNS_REQUIRED=1 makes it a failure)."""

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "mdns"))
sys.path.insert(0, os.path.join(ROOT, "Tests"))
import mdns_test as mdns  # noqa: E402
from pyhouse.house import House, wait_until  # noqa: E402

NAME = "homegate bridge mdns"
CODE = "031-45-154"


class BridgeHarness(mdns.Harness):
    def __init__(self, bin_path, venv_python):
        super().__init__(None, venv_python)
        self.ipv6 = True
        # The house of Tests/pyhouse, inside namespace A (where the ports are its own), on the private bus.
        self.house = House(bin_path, os.path.join(self.dir, "house"), prefix=["ip", "netns", "exec", self.ns_a], env=self.env)

    def start_house(self):
        self.house.start_mosquitto(port=1883)
        self.house.start_simulator(groups=False)
        self.homegate = self.house.start_gateway(env={
            "HOMEGATE_HTTP_LISTEN": "127.0.0.1:8380",
            "HOMEGATE_HAP_ENABLED": "true", "HOMEGATE_HAP_PORT": "51826",  # hap.bind left out: both stacks
            "HOMEGATE_HAP_NAME": NAME, "HOMEGATE_HAP_SETUP_CODE": CODE,
        })

    def log(self):
        return self.homegate.log()

    def run_test(self):
        self.make_namespaces()
        self.start_bus()
        self.start_avahi()
        try:
            self.start_house()
        except AssertionError as failure:
            raise mdns.Failure(str(failure)) from None
        try:
            wait_until(lambda: self.homegate.ready(f"advertised as '{NAME}'"), mdns.WAIT, "homegate to say it is advertised")
        except AssertionError as failure:
            raise mdns.Failure(f"{failure}: {self.log()[-1500:]}") from None
        self.check("homegate's bridge is advertised through avahi-daemon", True)
        client = self.start("client", [self.venv_python, os.path.join(HERE, "mdns_client.py"), mdns.ADDRESS_B, NAME, CODE], self.ns_b)
        found = client.wait_json("the bridge found by DNS-SD", lambda v: v.get("step") == "found", timeout=60)
        self.check("found from the other namespace by DNS-SD", found["ok"], found)
        txt = found["txt"]
        self.check("the TXT record has c#, ff, id, md, pv, s#, sf, ci, sh",
                   set(txt) >= {"c#", "ff", "id", "md", "pv", "s#", "sf", "ci", "sh"} and txt["sf"] == "1" and txt["ci"] == "2", txt)
        self.check("the advertised address and port are the bridge's", found["address"] == mdns.ADDRESS_A and found["port"] == 51826, found)
        reached = client.wait_json("every advertised address tried", lambda v: v.get("step") == "addresses", timeout=60)
        tried = reached["addresses"]
        print(f"     advertised: {json.dumps(tried)}", flush=True)
        self.check("IPv4 and IPv6 addresses are advertised",
                   mdns.ADDRESS_A in tried and mdns.ADDRESS6_A in tried and any(":" in a for a in tried), reached)
        self.check("every advertised address accepts a connection on the bridge's port",
                   all(result == "accepted" for result in tried.values()), reached)
        paired = client.wait_json("pairing", lambda v: v.get("step") == "paired", timeout=90)
        self.check("aiohomekit pairs at the advertised address", paired["ok"] and paired["accessories"] > 1, paired)
        flipped = client.wait_json("sf", lambda v: v.get("step") == "sf", timeout=60)
        self.check("sf flips to 0 in place once paired", flipped["ok"], flipped)
        reset = self.house.run_homegate("hap", "reset", "--identity")
        self.check("homegate hap reset --identity, through the running homegate's HTTP API", reset.returncode == 0,
                   reset.stdout + reset.stderr)
        renewed = client.wait_json("the new id", lambda v: v.get("step") == "new id", timeout=90)
        self.check("the running bridge is advertised with its new device id, unpaired (sf=1)",
                   renewed["ok"] and renewed["txt"]["id"] in reset.stdout and renewed["txt"]["c#"] == "1", renewed)


def main():
    bin_path, venv_python = sys.argv[1], sys.argv[2]
    required = os.environ.get("HOMEGATE_MDNS_REQUIRED") == "1"
    harness = BridgeHarness(bin_path, venv_python)
    try:
        if os.geteuid() != 0:
            raise mdns.Skip("not root: network namespaces, veth pairs and mounts need CAP_NET_ADMIN and CAP_SYS_ADMIN")
        for tool in ("ip", "unshare", "dbus-daemon", "avahi-daemon", "mosquitto"):
            if shutil.which(tool) is None:
                raise mdns.Skip(f"{tool} is not installed (scripts/install-mdns-deps.sh installs it)")
        harness.run_test()
    except mdns.Skip as skip:
        print(f"hap bridge mdns: SKIPPED: {skip}", flush=True)
        return 1 if required else 0
    except mdns.Failure as failure:
        print(f"not ok {harness.passed + 1} - {failure}", flush=True)
        for process in harness.processes:
            print(f"--- {process.label} (pid {process.popen.pid}) stdout: {process.history[-8:]}\n    stderr: {process.tail()}", flush=True)
        print(harness.house.report(), flush=True)
        return 1
    finally:
        try:
            harness.house.stop_all()
        finally:
            harness.teardown()
    print(f"hap bridge mdns: {harness.passed} passed, 0 failed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
