#!/usr/bin/env python3
"""Runs what `docker compose up` would run, without containers, and checks the house works.

Each service of the resolved compose file (`docker-compose config`) is started natively from the
same files: the Dockerfile's COPY and ENV lines and the compose volumes and secrets say which
repository file or scratch folder each container path is, service names become 127.0.0.1, the
broker gets a free port, the page a free loopback port. Each scenario runs in a scratch project
folder that links to the repository's files but has its own .env and my-mappings/, as a user's
clone would. Services start in dependency order, each `service_healthy` dependency is waited for
by running its own healthcheck command, and then, for each compose variant of docs/install.md:

  demo         compose.yaml with --profile demo: a write to the simulated bulb through homegate
               reaches the device and comes back as an event; `homegate doctor` in the service
               passes without --config (the image's HOMEGATE_CONFIG) with TZ from .env; the page
               and the API take exactly the .env's token;
  existing     compose.existing-broker.yaml next to a Mosquitto that wants a password, read from
               the secret file MQTT_PASSWORD_FILE names;
  env-password the same, the user and password as HOMEGATE_* lines in .env;
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
               pairing` in the service prints the setup code that pairs.

usage: compose-smoke.py BIN_DIR [demo|existing|env-password|anonymous|tls|own|homekit ...]   (BIN_DIR holds homegate and homegate-simulator)
"""
import json, os, random, re, shutil, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BROKER_PORT_IN_CONTAINER = 1883
USER = __import__("pwd").getpwuid(os.getuid()).pw_name


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resolved(project, files, profile, env):
    import yaml
    command = ["docker-compose"] + sum((["-f", f] for f in files), []) + (["--profile", profile] if profile else []) + ["config"]
    result = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"docker-compose config refused {files}: {result.stderr.strip()}")
    return yaml.safe_load(result.stdout)


def project(scratch, dotenv, name="project"):
    """A user's clone: the repository's files, linked, with its own .env and my-mappings/ (from the
    shipped template, as docs/install.md says to make it)."""
    folder = os.path.join(scratch, name)
    os.makedirs(folder)
    for entry in os.listdir(ROOT):
        if entry not in (".env", "my-mappings", ".git", ".build"):
            os.symlink(os.path.join(ROOT, entry), os.path.join(folder, entry))
    os.makedirs(os.path.join(folder, "my-mappings"))
    shutil.copy(os.path.join(ROOT, "mappings", "zigbee2mqtt.yaml"), os.path.join(folder, "my-mappings"))
    with open(os.path.join(folder, ".env"), "w") as f:
        f.write(dotenv)
    return folder


def runtime_stage():
    """The last stage of the Dockerfile: its COPY lines (container path -> repo path), ENTRYPOINT, CMD, WORKDIR, ENV."""
    text = open(os.path.join(ROOT, "Dockerfile")).read().replace("\\\n", " ")
    stage = text.split("\nFROM ")[-1]
    copies, entrypoint, cmd, workdir, environment = {}, [], [], "/", {}
    for line in stage.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "COPY" and not words[1].startswith("--from"):
            copies[words[-1].rstrip("/")] = os.path.join(ROOT, words[1].rstrip("/"))
        elif words[0] == "ENTRYPOINT":
            entrypoint = json.loads(line[len("ENTRYPOINT"):])
        elif words[0] == "CMD":
            cmd = json.loads(line[len("CMD"):])
        elif words[0] == "WORKDIR":
            workdir = words[1]
        elif words[0] == "ENV":
            key, _, value = words[1].partition("=")
            environment[key] = value
    return copies, entrypoint, cmd, workdir, environment


class Smoke:
    def __init__(self, bin_dir, scratch):
        self.bin = os.path.abspath(bin_dir)
        self.scratch = scratch
        self.processes = []
        self.logs = []

    def start(self, name, argv, env=None, cwd=None):
        log = os.path.join(self.scratch, name + ".log")
        self.logs.append(log)
        handle = open(log, "w")
        process = subprocess.Popen(argv, stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
        self.processes.append((name, process))
        return process

    def stop(self):
        for name, process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.processes = []

    def show_logs(self):
        for log in self.logs:
            print(f"---- {log}")
            print(open(log).read()[-4000:])

    def until(self, what, argv, env, seconds):
        """Runs a healthcheck command until it passes, as compose's service_healthy does."""
        deadline = time.monotonic() + seconds
        while True:
            result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
            if result.returncode == 0:
                return result.stdout.strip()
            for name, process in self.processes:
                if process.poll() is not None:
                    raise SystemExit(f"{name} exited with status {process.returncode} while waiting for {what}")
            if time.monotonic() > deadline:
                raise SystemExit(f"{what}: its healthcheck never passed in {seconds} s: {result.stdout.strip()} {result.stderr.strip()}")
            time.sleep(0.5)


def run(smoke, folder, files, profile, project_env, broker=None):
    """Starts every service of the compose files; returns the broker port and homegate's (env, argv)."""
    config = resolved(folder, files, profile, project_env)
    copies, entrypoint, cmd, workdir, image_env = runtime_stage()
    services = config["services"]
    port = broker["port"] if broker else free_port()
    paths = dict(copies)
    for name, volume in (config.get("volumes") or {}).items():
        paths_for_volume = os.path.join(smoke.scratch, "volume-" + name)
        os.makedirs(paths_for_volume, exist_ok=True)
        paths["volume:" + name] = paths_for_volume
    for name, secret in (config.get("secrets") or {}).items():
        paths["/run/secrets/" + name] = secret["file"]
    service_names = set(services)

    def translate(text, mounts):
        for host in service_names:
            text = text.replace(f"{host}:{BROKER_PORT_IN_CONTAINER}", f"127.0.0.1:{port}")
        for container in sorted(mounts, key=len, reverse=True):
            if text == container or text.startswith(container + "/"):
                return mounts[container] + text[len(container):]
        return text

    def mounts_of(service):
        mounts = {k: v for k, v in paths.items() if not k.startswith("volume:")}
        for volume in service.get("volumes", []):
            if isinstance(volume, dict):
                source, target = volume.get("source"), volume["target"]
            else:
                parts = volume.split(":")
                source, target = parts[0], parts[1]
            mounts[target] = paths.get("volume:" + source, source)
        for secret in service.get("secrets", []):
            name = secret if isinstance(secret, str) else secret["source"]
            mounts["/run/secrets/" + name] = paths["/run/secrets/" + name]
        return mounts

    def localized(path, name, mounts):
        """The image's homegate.yaml, with its container paths made this machine's."""
        text = open(path).read()
        for container in sorted(mounts, key=len, reverse=True):
            text = re.sub(rf"(?<![\w/]){re.escape(container)}(?=[/\s]|$)", mounts[container], text)
        for host in service_names:
            text = text.replace(f"{host}:{BROKER_PORT_IN_CONTAINER}", f"127.0.0.1:{port}")
        copy = os.path.join(smoke.scratch, name + "-" + os.path.basename(path))
        open(copy, "w").write(text)
        return copy

    def healthcheck(name, service, mounts, env):
        test = service.get("healthcheck", {}).get("test")
        if not test:
            return None
        argv = [translate(a.replace("$$", "$"), mounts) for a in test[1:]]
        if argv[0] == "mosquitto_sub":  # inside its container the broker is localhost:1883
            argv += ["-h", "127.0.0.1", "-p", str(port)]
        if argv[0].startswith("homegate"):
            argv[0] = os.path.join(smoke.bin, argv[0])
        return argv

    started, homegate, order = set(), None, list(services)
    while len(started) < len(services):
        for name in order:
            service = services[name]
            if name in started or any(d not in started for d in service.get("depends_on", {})):
                continue
            mounts = mounts_of(service)
            image = service["image"]
            env = {"PATH": os.environ["PATH"]}
            if image.startswith("homegate"):
                env.update({key: translate(value, mounts) for key, value in image_env.items()})
            for key, value in (service.get("environment") or {}).items():
                env[key] = translate(str(value), mounts)
            if image.startswith("homegate"):
                # The container's 0.0.0.0:8380 that compose publishes, or the default port on the
                # host's network: natively, any free loopback port.
                env["HOMEGATE_HTTP_LISTEN"] = "127.0.0.1:0"
            if image.startswith("eclipse-mosquitto"):
                conf = open(mounts["/mosquitto/config/mosquitto.conf"]).read()
                conf = re.sub(rf"^listener {BROKER_PORT_IN_CONTAINER}\b.*$", f"listener {port} 127.0.0.1", conf, flags=re.M)
                data = mounts.get("/mosquitto/data") or os.path.join(smoke.scratch, name + "-data")
                os.makedirs(data, exist_ok=True)
                conf = conf.replace("/mosquitto/data/", data + "/")
                conf += f"\nuser {USER}\n"  # as root, mosquitto would switch to its own user and lose the scratch folder
                path = os.path.join(smoke.scratch, "mosquitto.conf")
                open(path, "w").write(conf)
                smoke.start(name, ["mosquitto", "-c", path], env=env)
                smoke.until(name, ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-t", "$SYS/broker/uptime", "-C", "1", "-W", "3"], env, 20)
            elif image.startswith("koenkk/zigbee2mqtt"):  # the user's Zigbee2MQTT: the simulator stands in
                smoke.start(name, [os.path.join(smoke.bin, "homegate-simulator"), "--url", f"mqtt://127.0.0.1:{port}",
                                   "--devices", os.path.join(ROOT, "demo", "devices.json"), "--sensor-interval", "0"], env=env)
            else:
                argv = service.get("entrypoint") or entrypoint
                argv = argv + (service.get("command") or (cmd if not service.get("entrypoint") else []))
                argv = [translate(a, mounts) for a in argv]
                argv[0] = os.path.join(smoke.bin, argv[0])
                for key, value in list(env.items()):
                    if value.endswith(".yaml") and value.startswith(ROOT):
                        env[key] = localized(value, name, mounts)
                cwd = translate(workdir, mounts)
                os.makedirs(cwd, exist_ok=True) if cwd.startswith(smoke.scratch) else None
                smoke.start(name, argv, env=env, cwd=cwd if os.path.isdir(cwd) else None)
                if name == "homegate":
                    homegate = (env, argv, cwd)
            check = healthcheck(name, service, mounts, env)
            if check:
                print(f"  {name}: healthy ({smoke.until(name, check, env, 60) or 'exit 0'})")
            else:
                print(f"  {name}: started")
            started.add(name)
    return port, homegate


def rr(port, topic, reply, message, extra=()):
    argv = ["mosquitto_rr", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-e", reply, "-m", message, "-W", "20", "-q", "1"] + list(extra)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise SystemExit(f"no answer on {reply} to {topic} {message}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def clean_env(extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_") and k not in ("MQTT_URL", "TZ")}
    env.update(extra)
    return env


def doctor(homegate, expect=()):
    """`docker compose exec homegate homegate doctor`: the service's environment, no --config."""
    env, argv, cwd = homegate
    result = subprocess.run([argv[0], "doctor"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    if result.returncode != 0 or any(e not in result.stdout for e in expect):
        raise SystemExit(f"homegate doctor in the homegate service's settings did not pass (wanted {list(expect)}):\n{result.stdout}{result.stderr}")
    print("  homegate doctor, no --config: " + result.stdout.strip().splitlines()[-1])
    return result.stdout


def demo(smoke):
    print("compose.yaml --profile demo:")
    folder = project(smoke.scratch, "TZ=Europe/Amsterdam\nHOMEGATE_LOCATION_LATITUDE=52.37\nHOMEGATE_LOCATION_LONGITUDE=4.9\n"
                     "HOMEGATE_HTTP_TOKEN=smoke-token\nHOMEGATE_LOG_LEVELS_MQTT=debug\n")
    port, homegate = run(smoke, folder, ["compose.yaml"], "demo", clean_env({}))
    out = doctor(homegate, ["Europe/Amsterdam (from TZ)", "zigbee2mqtt: online", "/homegate.sqlite can be written"])
    if "volume-homegate-data/homegate.sqlite" not in out:
        raise SystemExit(f"doctor did not check the database in the data volume:\n{out}")
    if homegate[0].get("HOMEGATE_LOG_LEVELS_MQTT") != "debug":
        raise SystemExit("a HOMEGATE_* line of .env did not reach the homegate service")
    value = random.choice([v for v in range(2, 99) if v != 50])  # 50 is where the simulated bulb starts
    event = rr(port, "homegate/set/bulb/lightbulb/brightness", "homegate/event/bulb/lightbulb/brightness", str(value))
    if event.get("value") != value or event.get("source") != "api":
        raise SystemExit(f"the write did not come back as the device's change: {event}")
    print(f"  a write of brightness {value} reached the simulated bulb and came back as an event: {json.dumps(event, sort_keys=True)}")
    http_checks(smoke, "smoke-token")


def http_checks(smoke, token):
    """The web page and the API as the image serves them: the page from the folder the Dockerfile
    copies (named in the image's homegate.yaml), the API behind the .env's token."""
    log = next(path for path in smoke.logs if path.endswith("homegate.log"))
    deadline = time.monotonic() + 20
    while not (found := re.search(r"listening on (http://127\.0\.0\.1:\d+)/", open(log).read())):
        if time.monotonic() > deadline:
            raise SystemExit("homegate never said where its HTTP API listens")
        time.sleep(0.2)
    base = found.group(1)

    def get(path, with_token):
        request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"} if with_token else {})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    status, page = get("/", False)
    if status != 200 or "app.js" not in page:
        raise SystemExit(f"the web page is not served from the image's web_root: {status} {page[:200]}")
    if get("/api/accessories", False)[0] != 401 or get("/api/accessories", True)[0] != 200:
        raise SystemExit("the HTTP API does not take exactly the .env's token")
    print(f"  the web page is served from the image's folder, and the API takes the .env's token ({base})")


def existing_broker(smoke, password):
    """A Mosquitto the user already runs, on this host: with a password file, or anonymous."""
    port = free_port()
    lines = f"listener {port} 127.0.0.1\nset_tcp_nodelay true\nuser {USER}\n"
    if password:
        passwd = os.path.join(smoke.scratch, "passwd")
        open(passwd, "w").close()
        subprocess.run(["mosquitto_passwd", "-b", passwd, "homegate", password], check=True, capture_output=True)
        lines += f"allow_anonymous false\npassword_file {passwd}\n"
    else:
        lines += "allow_anonymous true\n"
    conf = os.path.join(smoke.scratch, "existing.conf")
    open(conf, "w").write(lines)
    smoke.start("existing-mosquitto", ["mosquitto", "-c", conf])
    return port


def existing(smoke):
    print("compose.existing-broker.yaml next to a Mosquitto with a password, in the file MQTT_PASSWORD_FILE names:")
    password = f"smoke-{random.randint(0, 1 << 30)}"
    port = existing_broker(smoke, password)
    secret = os.path.join(smoke.scratch, "mqtt_password")
    open(secret, "w").write(password + "\n")
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_MQTT_USERNAME=homegate\nMQTT_PASSWORD_FILE={secret}\n")
    _, homegate = run(smoke, folder, ["compose.existing-broker.yaml"], None, clean_env({}), broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}", ["-u", "homegate", "-P", password])
    if answer.get("status") != "ok":
        raise SystemExit(f"home/list was not answered ok: {answer}")
    print(f"  logged in with the secret file; home/list answered: {len(answer['data']['homes'])} home")


def env_password(smoke):
    print("compose.existing-broker.yaml next to a Mosquitto with a password, given in .env:")
    password = f"smoke-{random.randint(0, 1 << 30)}"
    port = existing_broker(smoke, password)
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_MQTT_USERNAME=homegate\nHOMEGATE_MQTT_PASSWORD={password}\n")
    run(smoke, folder, ["compose.existing-broker.yaml"], None, clean_env({}), broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}", ["-u", "homegate", "-P", password])
    if answer.get("status") != "ok":
        raise SystemExit(f"home/list was not answered ok: {answer}")
    print("  logged in with HOMEGATE_MQTT_USERNAME and HOMEGATE_MQTT_PASSWORD from .env")


def anonymous(smoke):
    print("compose.existing-broker.yaml next to an anonymous Mosquitto, no password file, .env of before 0.7.0 (MQTT_URL):")
    port = existing_broker(smoke, None)
    folder = project(smoke.scratch, f"MQTT_URL=mqtt://127.0.0.1:{port}\n")
    _, homegate = run(smoke, folder, ["compose.existing-broker.yaml"], None, clean_env({}), broker={"port": port})
    doctor(homegate, ["MQTT_URL is the name compose.existing-broker.yaml read before 0.7.0", "broker"])
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}")
    if answer.get("status") != "ok":
        raise SystemExit(f"home/list was not answered ok: {answer}")
    print("  connected anonymously; MQTT_URL honoured with a warning")


def install_block(name):
    """A compose file of docs/install.md: the block marked ```yaml compose-smoke=<name>."""
    text = open(os.path.join(ROOT, "docs", "install.md")).read()
    found = re.search(rf"```yaml compose-smoke={name}\n(.*?)```", text, re.S)
    if not found:
        raise SystemExit(f"docs/install.md has no block marked ```yaml compose-smoke={name}")
    return found.group(1)


def own_service():
    """The homegate service as docs/install.md shows it for the user's own compose file."""
    import yaml
    return yaml.safe_load(install_block("own"))


def tls(smoke):
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
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtts://localhost:{port}\n")
    shutil.copy(os.path.join(smoke.scratch, "ca.crt"), os.path.join(folder, "ca.crt"))
    open(os.path.join(folder, "compose.override.yaml"), "w").write(install_block("tls"))
    run(smoke, folder, ["compose.existing-broker.yaml", "compose.override.yaml"], None, clean_env({}), broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}",
                ["--cafile", os.path.join(smoke.scratch, "ca.crt"), "-h", "localhost"])
    if answer.get("status") != "ok":
        raise SystemExit(f"home/list was not answered ok over TLS: {answer}")
    print("  connected over TLS with the CA the override mounts; home/list answered")


OWN_COMPOSE = {  # what a user who already runs Mosquitto and Zigbee2MQTT in compose has
    "services": {
        "mosquitto": {"image": "eclipse-mosquitto:2", "restart": "unless-stopped", "ports": ["1883:1883"],
                      "volumes": ["./mosquitto/mosquitto.conf:/mosquitto/config/mosquitto.conf", "./mosquitto/data:/mosquitto/data"]},
        "zigbee2mqtt": {"image": "koenkk/zigbee2mqtt:2", "restart": "unless-stopped", "depends_on": ["mosquitto"],
                        "ports": ["8080:8080"], "volumes": ["./zigbee2mqtt:/app/data"]},
    }
}


def own(smoke):
    print("homegate as a service of your own compose file (docs/install.md), beside your Mosquitto and Zigbee2MQTT:")
    import yaml
    stack = os.path.join(smoke.scratch, "stack")
    os.makedirs(os.path.join(stack, "mosquitto", "data"))
    os.makedirs(os.path.join(stack, "zigbee2mqtt"))
    open(os.path.join(stack, "mosquitto", "mosquitto.conf"), "w").write(
        "listener 1883\nallow_anonymous true\npersistence true\npersistence_location /mosquitto/data/\n")
    os.rename(project(smoke.scratch, "HOMEGATE_HTTP_TOKEN=smoke-token\nHOMEGATE_BASE_TOPIC=house\nTZ=Europe/Amsterdam\n"),
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
        raise SystemExit(f"home/list on the .env's base topic was not answered ok: {answer}")
    doctor(homegate, ["zigbee2mqtt: online", "Europe/Amsterdam (from TZ)"])
    http_checks(smoke, "smoke-token")
    print("  the .env's HOMEGATE_BASE_TOPIC reached homegate (house/request/home/list answered)")


def homekit(smoke):
    print("compose.existing-broker.yaml with compose.homekit.yaml (the HomeKit bridge), next to an anonymous Mosquitto:")
    port = existing_broker(smoke, None)
    hap_port = free_port()
    folder = project(smoke.scratch, f"HOMEGATE_MQTT_URL=mqtt://127.0.0.1:{port}\nHOMEGATE_HAP_PORT={hap_port}\n")
    files = ["compose.existing-broker.yaml", "compose.homekit.yaml"]
    service = resolved(folder, files, None, clean_env({}))["services"]["homegate"]
    mounts = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in service.get("volumes", [])]
    if service.get("network_mode") != "host" or not any(m.startswith("/run/dbus:/run/dbus") for m in mounts):
        raise SystemExit(f"compose.homekit.yaml does not put homegate on the host network with the host's D-Bus: {service}")
    _, homegate = run(smoke, folder, files, None, clean_env({}), broker={"port": port})
    env, argv, cwd = homegate
    if env.get("HOMEGATE_HAP_ENABLED") != "true":
        raise SystemExit("compose.homekit.yaml did not turn the HomeKit bridge on")
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", hap_port), timeout=5) as connection:
                connection.sendall(b"GET /accessories HTTP/1.1\r\nHost: homegate\r\n\r\n")
                status = connection.recv(200).split(b"\r\n")[0].decode()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"the HomeKit bridge never listened on HOMEGATE_HAP_PORT {hap_port}")
            time.sleep(0.2)
    if " 470 " not in status:
        raise SystemExit(f"a HAP request without a session got {status!r}, not 470")
    print(f"  the bridge serves on the .env's HOMEGATE_HAP_PORT {hap_port}: {status}")
    result = subprocess.run([argv[0], "hap", "pairing"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    code = re.search(r"setup code: (\d{3}-\d{2}-\d{3})", result.stdout)
    if result.returncode != 0 or not code or "X-HM://" not in result.stdout:
        raise SystemExit(f"homegate hap pairing in the service did not print a setup code and URI:\n{result.stdout}{result.stderr}")
    print(f"  homegate hap pairing in the service: setup code {code.group(1)[:3]}-..-..., an X-HM:// URI and its QR code")


SCENARIOS = {"demo": demo, "existing": existing, "env-password": env_password, "anonymous": anonymous, "tls": tls, "own": own,
             "homekit": homekit}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    scenarios = sys.argv[2:] or list(SCENARIOS)
    for scenario in scenarios:
        scratch = tempfile.mkdtemp(prefix=f"compose-smoke-{scenario}-")
        smoke = Smoke(sys.argv[1], scratch)
        try:
            SCENARIOS[scenario](smoke)
        except BaseException:
            smoke.stop()
            smoke.show_logs()
            raise
        smoke.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print("compose smoke passed: " + ", ".join(scenarios))


if __name__ == "__main__":
    main()
