#!/usr/bin/env python3
"""Runs what `docker compose up` would run, without containers, and checks the house works.

Each service of the resolved compose file (`docker-compose config`) is started natively from the
same files: the Dockerfile's COPY lines and the compose volumes and secrets say which repository
file or scratch folder each container path is, service names become 127.0.0.1, the broker gets a
free port. Services start in dependency order, each `service_healthy` dependency is waited for by
running its own healthcheck command, and then:

  demo         compose.yaml with --profile demo: a write to the simulated bulb through homegate
               reaches the device, and its change comes back as an event credited to the API;
  existing     compose.existing-broker.yaml next to a Mosquitto that wants a password, read from
               the secret file: homegate's healthcheck passes and a request is answered.

usage: compose-smoke.py BIN_DIR [demo|existing ...]   (BIN_DIR holds homegate and homegate-simulator)
"""
import json, os, random, re, shutil, socket, subprocess, sys, tempfile, time, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BROKER_PORT_IN_CONTAINER = 1883
USER = __import__("pwd").getpwuid(os.getuid()).pw_name


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resolved(files, profile, env):
    import yaml
    command = ["docker-compose"] + sum((["-f", f] for f in files), []) + (["--profile", profile] if profile else []) + ["config"]
    out = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    return yaml.safe_load(out)


def runtime_stage():
    """The last stage of the Dockerfile: its COPY lines (container path -> repo path), ENTRYPOINT, CMD, WORKDIR."""
    text = open(os.path.join(ROOT, "Dockerfile")).read().replace("\\\n", " ")
    stage = text.split("\nFROM ")[-1]
    copies, entrypoint, cmd, workdir = {}, [], [], "/"
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
    return copies, entrypoint, cmd, workdir


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


def run(smoke, files, profile, project_env, broker=None):
    """Starts every service of the compose files; returns the broker port and the environment of homegate."""
    config = resolved(files, profile, project_env)
    copies, entrypoint, cmd, workdir = runtime_stage()
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

    started, homegate_env, order = set(), None, list(services)
    while len(started) < len(services):
        for name in order:
            service = services[name]
            if name in started or any(d not in started for d in service.get("depends_on", {})):
                continue
            mounts = mounts_of(service)
            env = {"PATH": os.environ["PATH"]}
            for key, value in (service.get("environment") or {}).items():
                env[key] = translate(str(value), mounts)
            if service["image"].startswith("eclipse-mosquitto"):
                conf = open(mounts["/mosquitto/config/mosquitto.conf"]).read()
                conf = re.sub(rf"^listener {BROKER_PORT_IN_CONTAINER}\b.*$", f"listener {port} 127.0.0.1", conf, flags=re.M)
                conf = conf.replace("/mosquitto/data/", mounts["/mosquitto/data"] + "/")
                conf += f"\nuser {USER}\n"  # as root, mosquitto would switch to its own user and lose the scratch folder
                path = os.path.join(smoke.scratch, "mosquitto.conf")
                open(path, "w").write(conf)
                smoke.start(name, ["mosquitto", "-c", path], env=env)
            else:
                argv = service.get("entrypoint") or entrypoint
                argv = argv + (service.get("command") or (cmd if not service.get("entrypoint") else []))
                argv = [translate(a, mounts) for a in argv]
                argv[0] = os.path.join(smoke.bin, argv[0])
                # The image's homegate.yaml, with its container paths made this machine's.
                for i, a in enumerate(argv):
                    if a.endswith(".yaml") and a.startswith(ROOT):
                        text = open(a).read()
                        for container in sorted(mounts, key=len, reverse=True):
                            text = re.sub(rf"(?<![\w/]){re.escape(container)}(?=[/\s]|$)", mounts[container], text)
                        for host in service_names:
                            text = text.replace(f"{host}:{BROKER_PORT_IN_CONTAINER}", f"127.0.0.1:{port}")
                        copy = os.path.join(smoke.scratch, name + "-" + os.path.basename(a))
                        open(copy, "w").write(text)
                        mounts[a] = copy
                        argv[i] = copy
                cwd = translate(workdir, mounts)
                os.makedirs(cwd, exist_ok=True) if cwd.startswith(smoke.scratch) else None
                smoke.start(name, argv, env=env, cwd=cwd if os.path.isdir(cwd) else None)
                if name == "homegate":
                    homegate_env = (env, argv)
            check = healthcheck(name, service, mounts, env)
            if check:
                print(f"  {name}: healthy ({smoke.until(name, check, env, 60) or 'exit 0'})")
            else:
                print(f"  {name}: started")
            started.add(name)
    return port, homegate_env


def rr(port, topic, reply, message, extra=()):
    argv = ["mosquitto_rr", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-e", reply, "-m", message, "-W", "20", "-q", "1"] + list(extra)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise SystemExit(f"no answer on {reply} to {topic} {message}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def demo(smoke):
    print("compose.yaml --profile demo:")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_")}
    env.update({"TZ": "Europe/Amsterdam", "HOMEGATE_LOCATION_LATITUDE": "52.37", "HOMEGATE_LOCATION_LONGITUDE": "4.9"})
    # The container listens on 0.0.0.0:8080 with the .env's token; natively, any free loopback port.
    env.update({"HOMEGATE_HTTP_TOKEN": "smoke-token", "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0"})
    port, (homegate_env, homegate_argv) = run(smoke, ["compose.yaml"], "demo", env)
    config = homegate_argv[homegate_argv.index("--config") + 1]
    doctor = subprocess.run([homegate_argv[0], "doctor", "--config", config], env=homegate_env, capture_output=True, text=True, timeout=60)
    if doctor.returncode != 0 or "Europe/Amsterdam (from TZ)" not in doctor.stdout or "zigbee2mqtt: online" not in doctor.stdout:
        raise SystemExit(f"homegate doctor in the homegate service's settings did not pass:\n{doctor.stdout}{doctor.stderr}")
    print("  homegate doctor with the service's settings: " + doctor.stdout.strip().splitlines()[-1] + " (TZ from .env honoured)")
    value = random.choice([v for v in range(2, 99) if v != 50])  # 50 is where the simulated bulb starts
    event = rr(port, "homegate/set/bulb/lightbulb/brightness", "homegate/event/bulb/lightbulb/brightness", str(value))
    if event.get("value") != value or event.get("source") != "api":
        raise SystemExit(f"the write did not come back as the device's change: {event}")
    print(f"  a write of brightness {value} reached the simulated bulb and came back as an event: {json.dumps(event, sort_keys=True)}")
    http_checks(smoke, env["HOMEGATE_HTTP_TOKEN"])


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


def existing(smoke):
    print("compose.existing-broker.yaml next to a Mosquitto with a password:")
    port = free_port()
    password = f"smoke-{random.randint(0, 1 << 30)}"
    passwd = os.path.join(smoke.scratch, "passwd")
    open(passwd, "w").close()
    subprocess.run(["mosquitto_passwd", "-b", passwd, "homegate", password], check=True, capture_output=True)
    conf = os.path.join(smoke.scratch, "existing.conf")
    open(conf, "w").write(f"listener {port} 127.0.0.1\nallow_anonymous false\npassword_file {passwd}\nset_tcp_nodelay true\nuser {USER}\n")
    smoke.start("existing-mosquitto", ["mosquitto", "-c", conf])
    secret = os.path.join(smoke.scratch, "mqtt_password")
    open(secret, "w").write(password + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_")}
    env.update({"MQTT_URL": f"mqtt://127.0.0.1:{port}", "MQTT_PASSWORD_FILE": secret, "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0"})
    run(smoke, ["compose.existing-broker.yaml"], None, env, broker={"port": port})
    answer = rr(port, "homegate/request/home/list", "homegate/response/home/list", "{}", ["-u", "homegate", "-P", password])
    if answer.get("status") != "ok":
        raise SystemExit(f"home/list was not answered ok: {answer}")
    print(f"  logged in with the secret file; home/list answered: {len(answer['data']['homes'])} home")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    scenarios = sys.argv[2:] or ["demo", "existing"]
    for scenario in scenarios:
        scratch = tempfile.mkdtemp(prefix=f"compose-smoke-{scenario}-")
        smoke = Smoke(sys.argv[1], scratch)
        try:
            {"demo": demo, "existing": existing}[scenario](smoke)
        except BaseException:
            smoke.stop()
            smoke.show_logs()
            raise
        smoke.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print("compose smoke passed: " + ", ".join(scenarios))


if __name__ == "__main__":
    main()
