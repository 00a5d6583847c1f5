"""Each compose way of docs/install.md, run natively from the same files (Tests/compose/services.py
says how), and checked:

  demo         compose.yaml with --profile demo: a write to the simulated bulb through homegate
               reaches the device and comes back as an event; `homegate doctor` in the service
               passes without --config (the image's HOMEGATE_CONFIG) with TZ from .env; the page
               and the API take exactly the .env's token;
  existing     compose.existing-broker.yaml next to a Mosquitto that wants a password, read from
               the secret file MQTT_PASSWORD_FILE names; install.md's upgrade block (the backup,
               the version) run as written;
  env_password the same, the user and password as HOMEGATE_* lines in .env;
  anonymous    the same next to an anonymous Mosquitto, with no password file at all, and the
               names of before 0.7.0 (MQTT_URL) still honoured;
  tls          the same with docs/install.md's TLS override (compose-smoke=tls), next to a Mosquitto
               on mqtts:// whose certificate a CA of the scratch folder signed;
  own          homegate as a service of the user's own compose file, as docs/install.md shows it
               (the block marked compose-smoke=own), beside their Mosquitto and Zigbee2MQTT (the
               simulator stands in for it), with a HOMEGATE_BASE_TOPIC from .env;
  homekit      compose.existing-broker.yaml with compose.homekit.yaml: homegate on the host's
               network with the host's D-Bus mounted, the HomeKit bridge on, serving on the .env's
               HOMEGATE_HAP_PORT (a HAP request without a session gets 470), and `homegate hap
               pairing` in the service prints the setup code that pairs; then install.md's
               backup with the bridge's state (mode 0600) and its restore through standard input,
               run as written (stop, `run -T ... import -`, start); install.md's uninstall
               (stop, clear-retained --dry-run, clear-retained).
  matter       compose.existing-broker.yaml with compose.matter.yaml, by docs/matter.md's lines: on
               the host's network with the host's D-Bus mounted, the Matter bridge on, serving on
               the .env's HOMEGATE_MATTER_PORT as `homegate doctor` in the service says (with its
               _matterc._udp advertisement and readable state), `homegate matter pairing` printing
               the codes; with compose.homekit.yaml as well, both bridges on.

Run with scripts/compose-test.sh [BIN_PATH] [pytest arguments…] (-k tls for one)."""
import json
import os
import random
import re
import shutil
import socket
import subprocess
import time

import pytest
from services import (USER, Smoke, clean_env, doc_block, doctor, dotenv, existing_broker, free_port, http_checks, in_service,
                      install_block, own_service, plain_compose, project, resolved, rr, run)


@pytest.fixture
def smoke(bin_path, request):
    """The scenario's processes in a scratch folder, removed when it passed."""
    smoke = Smoke(bin_path, request.node.name.removeprefix("test_"))
    try:
        yield smoke
    finally:
        smoke.stop_all()
    if not getattr(request.node, "rep_call", None) or request.node.rep_call.passed:
        smoke.remove()


def test_demo(smoke):
    print("compose.yaml --profile demo:")
    folder = project(smoke.scratch, "TZ=Europe/Amsterdam\nHOMEGATE_LOCATION_LATITUDE=52.37\nHOMEGATE_LOCATION_LONGITUDE=4.9\n"
                     "HOMEGATE_LOG_LEVELS_MQTT=debug\n", steps=[("docs/install.md", "first")])
    if "COMPOSE_FILE" in dotenv(folder):
        raise AssertionError("docs/install.md's first lines wrote COMPOSE_FILE: compose.yaml would not be the plain command's file")
    port, homegate = run(smoke, folder, None, "demo", clean_env({}))
    out = doctor(homegate, ["Europe/Amsterdam (from TZ)", "zigbee2mqtt: online", "/homegate.sqlite can be written"])
    if "volume-homegate-data/homegate.sqlite" not in out:
        raise AssertionError(f"doctor did not check the database in the data volume:\n{out}")
    if homegate[0].get("HOMEGATE_LOG_LEVELS_MQTT") != "debug":
        raise AssertionError("a HOMEGATE_* line of .env did not reach the homegate service")
    value = random.choice([v for v in range(2, 99) if v != 50])  # 50 is where the simulated bulb starts
    event = rr(port, "homegate/set/bulb/lightbulb/brightness", "homegate/event/bulb/lightbulb/brightness", str(value))
    if event.get("value") != value or event.get("source") != "api":
        raise AssertionError(f"the write did not come back as the device's change: {event}")
    print(f"  a write of brightness {value} reached the simulated bulb and came back as an event: {json.dumps(event, sort_keys=True)}")
    http_checks(smoke, dotenv(folder)["HOMEGATE_HTTP_TOKEN"])


def test_existing(smoke):
    print("compose.existing-broker.yaml next to a Mosquitto with a password, in the file MQTT_PASSWORD_FILE names:")
    password = f"smoke-{random.randint(0, 1 << 30)}"
    port = existing_broker(smoke, password)
    secret = os.path.join(smoke.scratch, "mqtt_password")
    open(secret, "w").write(password + "\n")
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_MQTT_USERNAME=homegate\nMQTT_PASSWORD_FILE={secret}\n")
    plain_compose(folder, "compose.existing-broker.yaml", ["homegate"])
    _, homegate = run(smoke, folder, None, None, clean_env({}), broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}", ["-u", "homegate", "-P", password])
    if answer.get("status") != "ok":
        raise AssertionError(f"home/list was not answered ok: {answer}")
    print(f"  logged in with the secret file; home/list answered: {len(answer['data']['homes'])} home")
    printed = in_service(smoke, folder, homegate, "docs/install.md", "upgrade")
    backup = open(os.path.join(folder, f"home-{time.strftime('%Y-%m-%d')}.yaml")).read()
    if not backup.startswith("# homegate export") or "homegate_export: 1" not in backup or not re.search(r"^\d+\.\d+\.\d+", printed):
        raise AssertionError(f"install.md's upgrade block did not write a backup and print the version:\n{printed}{backup[:300]}")


def test_env_password(smoke):
    print("compose.existing-broker.yaml next to a Mosquitto with a password, given in .env:")
    password = f"smoke-{random.randint(0, 1 << 30)}"
    port = existing_broker(smoke, password)
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_MQTT_USERNAME=homegate\nHOMEGATE_MQTT_PASSWORD={password}\n")
    run(smoke, folder, None, None, clean_env({}), broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}", ["-u", "homegate", "-P", password])
    if answer.get("status") != "ok":
        raise AssertionError(f"home/list was not answered ok: {answer}")
    print("  logged in with HOMEGATE_MQTT_USERNAME and HOMEGATE_MQTT_PASSWORD from .env")


def test_anonymous(smoke):
    print("compose.existing-broker.yaml next to an anonymous Mosquitto, no password file, .env of before 0.7.0 (MQTT_URL):")
    port = existing_broker(smoke, None)
    folder = project(smoke.scratch, f"MQTT_URL=mqtt://127.0.0.1:{port}\n")
    _, homegate = run(smoke, folder, None, None, clean_env({}), broker={"port": port})
    doctor(homegate, ["MQTT_URL is the name compose.existing-broker.yaml read before 0.7.0", "broker"])
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}")
    if answer.get("status") != "ok":
        raise AssertionError(f"home/list was not answered ok: {answer}")
    print("  connected anonymously; MQTT_URL honoured with a warning")


def test_tls(smoke):
    print("compose.existing-broker.yaml with docs/install.md's TLS override, next to a Mosquitto on mqtts:// with a CA of its own:")
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=smoke.scratch, check=True, capture_output=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=smoke-ca")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    open(os.path.join(smoke.scratch, "san.ext"), "w").write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt",
            "-days", "1", "-extfile", "san.ext")
    port = free_port()
    conf = os.path.join(smoke.scratch, "tls.conf")
    open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous true\nuser {USER}\n"
                          f"cafile {smoke.scratch}/ca.crt\ncertfile {smoke.scratch}/server.crt\nkeyfile {smoke.scratch}/server.key\n")
    smoke.start("tls-mosquitto", ["mosquitto", "-c", conf])
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtts://localhost:{port}\n",
                     steps=[("README.md", "quick-start"), ("docs/install.md", "tls-files"), ("docs/install.md", "tls-files")])
    shutil.copy(os.path.join(smoke.scratch, "ca.crt"), os.path.join(folder, "ca.crt"))
    open(os.path.join(folder, "compose.override.yaml"), "w").write(install_block("tls"))
    plain_compose(folder, "compose.existing-broker.yaml:compose.override.yaml", ["homegate"])
    run(smoke, folder, None, None, clean_env({}), broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}",
                ["--cafile", os.path.join(smoke.scratch, "ca.crt"), "-h", "localhost"])
    if answer.get("status") != "ok":
        raise AssertionError(f"home/list was not answered ok over TLS: {answer}")
    print("  connected over TLS with the CA the override mounts; home/list answered")


OWN_COMPOSE = {  # what a user who already runs Mosquitto and Zigbee2MQTT in compose has
    "services": {
        "mosquitto": {"image": "eclipse-mosquitto:2", "restart": "unless-stopped", "ports": ["1883:1883"],
                      "volumes": ["./mosquitto/mosquitto.conf:/mosquitto/config/mosquitto.conf", "./mosquitto/data:/mosquitto/data"]},
        "zigbee2mqtt": {"image": "koenkk/zigbee2mqtt:2", "restart": "unless-stopped", "depends_on": ["mosquitto"],
                        "ports": ["8080:8080"], "volumes": ["./zigbee2mqtt:/app/data"]},
    }
}


def test_own(smoke):
    print("homegate as a service of your own compose file (docs/install.md), beside your Mosquitto and Zigbee2MQTT:")
    import yaml
    stack = os.path.join(smoke.scratch, "stack")
    os.makedirs(os.path.join(stack, "mosquitto", "data"))
    os.makedirs(os.path.join(stack, "zigbee2mqtt"))
    open(os.path.join(stack, "mosquitto", "mosquitto.conf"), "w").write(
        "listener 1883\nallow_anonymous true\npersistence true\npersistence_location /mosquitto/data/\n")
    os.rename(project(smoke.scratch, "HOMEGATE_BASE_TOPIC=house\nTZ=Europe/Amsterdam\n", steps=[("docs/install.md", "first")]),
              os.path.join(stack, "homegate"))
    compose = json.loads(json.dumps(OWN_COMPOSE))
    snippet = own_service()
    compose["services"].update(snippet["services"])
    compose["volumes"] = {**compose.get("volumes", {}), **(snippet.get("volumes") or {})}
    open(os.path.join(stack, "compose.yaml"), "w").write(yaml.safe_dump(compose))
    port, homegate = run(smoke, stack, ["compose.yaml"], None, clean_env({}))
    env, argv, _ = homegate
    print(f"  homegate: ready ({smoke.until('homegate', [argv[0], 'health'], env, 60)})")
    answer = rr(port, "house/request/home/list", "house/response/home/list", "{}")
    if answer.get("status") != "ok":
        raise AssertionError(f"home/list on the .env's base topic was not answered ok: {answer}")
    doctor(homegate, ["zigbee2mqtt: online", "Europe/Amsterdam (from TZ)"])
    http_checks(smoke, dotenv(os.path.join(stack, "homegate"))["HOMEGATE_HTTP_TOKEN"])
    print("  the .env's HOMEGATE_BASE_TOPIC reached homegate (house/request/home/list answered)")


def test_homekit(smoke):
    print("compose.existing-broker.yaml with compose.homekit.yaml (the HomeKit bridge), next to an anonymous Mosquitto:")
    port = existing_broker(smoke, None)
    hap_port = free_port()
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_HAP_PORT={hap_port}\n",
                     steps=[("README.md", "quick-start"), ("README.md", "homekit"), ("README.md", "homekit")])
    plain_compose(folder, "compose.existing-broker.yaml:compose.homekit.yaml", ["homegate"])
    files = None
    service = resolved(folder, files, None, clean_env({}))["services"]["homegate"]
    mounts = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in service.get("volumes", [])]
    if service.get("network_mode") != "host" or not any(m.startswith("/run/dbus:/run/dbus") for m in mounts):
        raise AssertionError(f"compose.homekit.yaml does not put homegate on the host network with the host's D-Bus: {service}")
    _, homegate = run(smoke, folder, files, None, clean_env({}), broker={"port": port})
    env, argv, cwd = homegate
    if env.get("HOMEGATE_HAP_ENABLED") != "true":
        raise AssertionError("compose.homekit.yaml did not turn the HomeKit bridge on")
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", hap_port), timeout=5) as connection:
                connection.sendall(b"GET /accessories HTTP/1.1\r\nHost: homegate\r\n\r\n")
                status = connection.recv(200).split(b"\r\n")[0].decode()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"the HomeKit bridge never listened on HOMEGATE_HAP_PORT {hap_port}")
            time.sleep(0.2)
    if " 470 " not in status:
        raise AssertionError(f"a HAP request without a session got {status!r}, not 470")
    print(f"  the bridge serves on the .env's HOMEGATE_HAP_PORT {hap_port}: {status}")
    result = subprocess.run([argv[0], "hap", "pairing"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    code = re.search(r"setup code: (\d{3}-\d{2}-\d{3})", result.stdout)
    if result.returncode != 0 or not code or "X-HM://" not in result.stdout:
        raise AssertionError(f"homegate hap pairing in the service did not print a setup code and URI:\n{result.stdout}{result.stderr}")
    print(f"  homegate hap pairing in the service: setup code {code.group(1)[:3]}-..-..., an X-HM:// URI and its QR code")
    backup_and_restore(smoke, folder, homegate)


def backup_and_restore(smoke, folder, homegate):
    """install.md's backup with the bridge's state, and its restore through standard input."""
    in_service(smoke, folder, homegate, "docs/install.md", "backup-homekit")
    made = os.path.join(folder, f"home-{time.strftime('%Y-%m-%d')}.yaml")
    mode = os.stat(made).st_mode & 0o777
    if mode != 0o600 or "homegate_export: 2" not in open(made).read():
        raise AssertionError(f"the HomeKit backup is mode {oct(mode)}, or has not the bridge's state (homegate_export: 2)")
    print(f"  the backup with the bridge's state: mode {oct(mode)}, homegate_export: 2")
    named = re.search(r"< (\S+)", doc_block("docs/install.md", "restore")).group(1)
    if named != os.path.basename(made):
        shutil.copy(made, os.path.join(folder, named))
    printed = in_service(smoke, folder, homegate, "docs/install.md", "restore")
    if "volume-homegate-data/homegate.sqlite: imported" not in printed or "restored the HomeKit bridge's state (1 bridge" not in printed:
        raise AssertionError(f"the restore did not import into the data volume with the bridge's state:\n{printed}")
    print("  restored into the data volume's database through standard input, the bridge's state with it; started again, healthy")
    printed = in_service(smoke, folder, homegate, "docs/install.md", "uninstall")
    if "would remove homegate/bridge/state" not in printed or "removed homegate/bridge/state" not in printed.replace("would remove", ""):
        raise AssertionError(f"install.md's uninstall did not list and clear homegate's retained messages:\n{printed}")
    print("  install.md's uninstall: homegate stopped, its retained messages listed (--dry-run), then cleared")


def test_matter(smoke):
    print("compose.existing-broker.yaml with compose.matter.yaml (the Matter bridge), next to an anonymous Mosquitto:")
    port = existing_broker(smoke, None)
    matter_port = free_port(kind=socket.SOCK_DGRAM)
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_MATTER_PORT={matter_port}\n",
                     steps=[("README.md", "quick-start"), ("docs/matter.md", "matter"), ("docs/matter.md", "matter")])
    plain_compose(folder, "compose.existing-broker.yaml:compose.matter.yaml", ["homegate"])
    service = resolved(folder, None, None, clean_env({}))["services"]["homegate"]
    mounts = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in service.get("volumes", [])]
    if service.get("network_mode") != "host" or not any(m.startswith("/run/dbus:/run/dbus") for m in mounts):
        raise AssertionError(f"compose.matter.yaml does not put homegate on the host network with the host's D-Bus: {service}")
    both = resolved(folder, ["compose.existing-broker.yaml", "compose.homekit.yaml", "compose.matter.yaml"], None, clean_env({}))
    together = both["services"]["homegate"]
    if together["environment"].get("HOMEGATE_HAP_ENABLED") != "true" or together["environment"].get("HOMEGATE_MATTER_ENABLED") != "true":
        raise AssertionError(f"compose.homekit.yaml and compose.matter.yaml together do not turn both bridges on: {together}")
    print("  with compose.homekit.yaml as well: both bridges on, one host network, one D-Bus mount")
    _, homegate = run(smoke, folder, None, None, clean_env({}), broker={"port": port})
    env, argv, cwd = homegate
    if env.get("HOMEGATE_MATTER_ENABLED") != "true":
        raise AssertionError("compose.matter.yaml did not turn the Matter bridge on")
    serving = f"the bridge serves on UDP port {matter_port}"
    deadline = time.monotonic() + 30
    while True:
        result = subprocess.run([argv[0], "doctor"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
        if serving in result.stdout:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"the Matter bridge never served on HOMEGATE_MATTER_PORT {matter_port}:\n{result.stdout}{result.stderr}")
        time.sleep(0.5)
    doctor(homegate, expect=[serving, "._matterc._udp", "stored state readable"])
    result = subprocess.run([argv[0], "matter", "pairing"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    code = re.search(r"manual pairing code: (\d{11})", result.stdout)
    if result.returncode != 0 or not code or "MT:" not in result.stdout:
        raise AssertionError(f"homegate matter pairing in the service did not print a manual code and a QR payload:\n{result.stdout}{result.stderr}")
    print(f"  homegate matter pairing in the service: manual code {code.group(1)[:4]}-..., an MT: payload and its QR code")
