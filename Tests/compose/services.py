"""Runs what `docker compose up` would run, without containers (Tests/compose/test_compose.py says
what each scenario checks).

Each service of the resolved compose file (`docker-compose config`) is started natively from the
same files: the Dockerfile's COPY and ENV lines and the compose volumes and secrets say which
repository file or scratch folder each container path is, service names become 127.0.0.1, the
broker gets a free port, the page a free loopback port. Each scenario runs in a scratch project
folder that links to the repository's files but has its own .env and my-mappings/, made by the
docs' own lines as a user runs them (the blocks marked ```sh compose-smoke=<name>: the README's
quick start, install.md's first steps), and compose is then asked with the plain command, without
-f: the files come from the COMPOSE_FILE those lines wrote into .env, as `docker compose` reads it.
Services start in dependency order, and each `service_healthy` dependency is waited for by running
its own healthcheck command.
"""
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request

from pyhouse.house import ROOT as REPOSITORY, Processes, free_port

ROOT = str(REPOSITORY)
BROKER_PORT_IN_CONTAINER = 1883
USER = __import__("pwd").getpwuid(os.getuid()).pw_name


def resolved(project, files, profile, env):
    """`docker-compose config`: with `-f` for each of `files`, or, with files None, the plain command,
    which takes the files .env's COMPOSE_FILE names (else compose.yaml), as `docker compose` does."""
    import yaml
    command = ["docker-compose"] + sum((["-f", f] for f in files or []), []) + (["--profile", profile] if profile else []) + ["config"]
    result = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"docker-compose config refused {files or 'the files of .env'}: {result.stderr.strip()}")
    return yaml.safe_load(result.stdout)


def doc_block(path, name):
    """The block of a doc marked ```sh compose-smoke=<name>."""
    text = open(os.path.join(ROOT, path)).read()
    found = re.search(rf"^ *```sh compose-smoke={re.escape(name)}\n(.*?)^ *```", text, re.S | re.M)
    if not found:
        raise AssertionError(f"{path} has no block marked ```sh compose-smoke={name}")
    return found.group(1)


NOT_HERE = re.compile(r"^(sudo |git pull)|docker compose (up|down)|docker image ")  # what the smoke does itself, or cannot


def setup(folder, path, name):
    """Runs the lines of a doc's block that make the user's files (.env, my-mappings/) in `folder`,
    as the user would; the docker, sudo and git lines are what the scenario then does natively."""
    lines = [line for line in doc_block(path, name).splitlines() if line.strip() and "docker " not in line and not NOT_HERE.search(line)]
    result = subprocess.run(["bash", "-ec", "\n".join(lines)], cwd=folder, capture_output=True, text=True, env=clean_env({}))
    if result.returncode != 0:
        raise AssertionError(f"{path}, block compose-smoke={name}, failed in the user's folder:\n" + "\n".join(lines) + f"\n{result.stdout}{result.stderr}")
    print(f"  {path} ({name}): ran as written: " + "; ".join(line.split("  #")[0].strip() for line in lines))


def dotenv(folder):
    """The user's .env as compose reads it: later lines win."""
    values = {}
    for line in open(os.path.join(folder, ".env")):
        key, equals, value = line.strip().partition("=")
        if equals and not key.startswith("#"):
            values[key] = value
    return values


def project(scratch, extra, name="project", steps=(("README.md", "quick-start"),)):
    """A user's clone: the repository's files, linked, with its own .env and my-mappings/ made by
    the docs' own lines (`steps`: blocks marked compose-smoke=...), then the scenario's `extra`
    lines added to .env, as a user would edit it."""
    folder = os.path.join(scratch, name)
    os.makedirs(folder)
    for entry in os.listdir(ROOT):
        if entry not in (".env", "my-mappings", ".git", ".build"):
            os.symlink(os.path.join(ROOT, entry), os.path.join(folder, entry))
    for path, block in steps:
        setup(folder, path, block)
    if not os.path.isfile(os.path.join(folder, "my-mappings", "zigbee2mqtt.yaml")) or os.stat(os.path.join(folder, ".env")).st_mode & 0o077:
        raise AssertionError("the docs' first lines did not make my-mappings/zigbee2mqtt.yaml and a .env only its owner reads")
    with open(os.path.join(folder, ".env"), "a") as f:
        f.write(extra)
    return folder


def plain_compose(folder, expected_files, services):
    """The plain `docker compose` of the docs takes the files the install wrote into .env."""
    named = dotenv(folder).get("COMPOSE_FILE")
    if named != expected_files:
        raise AssertionError(f"the docs' lines left COMPOSE_FILE={named} in .env, not {expected_files}")
    found = sorted(resolved(folder, None, None, clean_env({}))["services"])
    if found != sorted(services):
        raise AssertionError(f"plain docker-compose config with COMPOSE_FILE={named} from .env resolved the services {found}, not {services}")
    print(f"  plain docker-compose config: COMPOSE_FILE={named} from .env, services {found}")


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


class Smoke(Processes):
    """One scenario's processes (Tests/pyhouse), in its scratch folder, with the built binaries."""

    def __init__(self, bin_dir, name):
        super().__init__(name=f"compose-{name}")
        self.bin = os.path.abspath(bin_dir)
        self.scratch = str(self.workdir)

    def stop_named(self, wanted):
        """Stops one service's process, as SIGTERM from `docker compose stop` does."""
        for name, _ in list(self.running):
            if name.startswith(wanted):
                self.stop(name, timeout=20)

    def until(self, what, argv, env, seconds):
        """Runs a healthcheck command until it passes, as compose's service_healthy does."""
        deadline = time.monotonic() + seconds
        while True:
            result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
            if result.returncode == 0:
                return result.stdout.strip()
            for name, process in self.running:
                if process.poll() is not None:
                    raise AssertionError(f"{name} exited with status {process.returncode} while waiting for {what}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: its healthcheck never passed in {seconds} s: {result.stdout.strip()} {result.stderr.strip()}")
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


DOCKER_SHIM = r"""docker() {  # `docker compose exec|run [-T] [--rm] homegate ...` as the smoke runs the service: natively
  [ "$1" = compose ] || { echo "compose smoke: no docker $1 here" >&2; return 2; }
  local verb=$2; shift 2
  while [ "${1#-}" != "$1" ]; do shift; done
  [ "$1" = homegate ] || { echo "compose smoke: only the homegate service, not $1" >&2; return 2; }
  shift
  if [ "$verb" = exec ]; then [ "$1" = homegate ] || return 2; shift; fi
  case $verb in exec|run) "$HOMEGATE_BINARY" "$@" ;; *) echo "compose smoke: docker compose $verb is not run here" >&2; return 2 ;; esac
}
"""


def in_service(smoke, folder, homegate, path, name):
    """Runs a doc's block of docker compose commands as written, in the user's folder: `exec` and
    `run` of the homegate service run homegate natively with the service's settings, `stop` and
    `start` stop and start the service's process; `up`, `git pull` and `sudo` lines are not run.
    Returns what the commands printed; the service's (env, argv, cwd) after it, started again."""
    env, argv, cwd = homegate
    printed = ""
    for line in doc_block(path, name).splitlines():
        command = line.split("  #")[0].strip()
        if not command or NOT_HERE.search(command):
            continue
        if command == "docker compose stop homegate":
            smoke.stop_named("homegate")
        elif command == "docker compose start homegate":
            smoke.start("homegate-started", argv, env=env, cwd=cwd)
            smoke.until("homegate, started again", [argv[0], "health"], env, 60)
        else:
            result = subprocess.run(["bash", "-c", DOCKER_SHIM + "set -eo pipefail\n" + command], cwd=folder, capture_output=True,
                                    text=True, timeout=60, env={**env, "HOMEGATE_BINARY": argv[0]})
            if result.returncode != 0:
                raise AssertionError(f"{path}, block compose-smoke={name}: `{command}` failed:\n{result.stdout}{result.stderr}")
            printed += result.stdout + result.stderr
        print(f"  {path} ({name}): {command}")
    return printed


def rr(port, topic, reply, message, extra=()):
    argv = ["mosquitto_rr", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-e", reply, "-m", message, "-W", "20", "-q", "1"] + list(extra)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise AssertionError(f"no answer on {reply} to {topic} {message}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("HOMEGATE_") and not k.startswith("COMPOSE_") and k not in ("MQTT_URL", "TZ")}
    env.update(extra)
    return env


def doctor(homegate, expect=()):
    """`docker compose exec homegate homegate doctor`: the service's environment, no --config."""
    env, argv, cwd = homegate
    result = subprocess.run([argv[0], "doctor"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    if result.returncode != 0 or any(e not in result.stdout for e in expect):
        raise AssertionError(f"homegate doctor in the homegate service's settings did not pass (wanted {list(expect)}):\n{result.stdout}{result.stderr}")
    print("  homegate doctor, no --config: " + result.stdout.strip().splitlines()[-1])
    return result.stdout


def http_checks(smoke, token):
    """The web page and the API as the image serves them: the page from the folder the Dockerfile
    copies (named in the image's homegate.yaml), the API behind the .env's token."""
    log = next(path for path in smoke.logs if path.name == "homegate.log")
    deadline = time.monotonic() + 20
    while not (found := re.search(r"listening on (http://127\.0\.0\.1:\d+)/", open(log).read())):
        if time.monotonic() > deadline:
            raise AssertionError("homegate never said where its HTTP API listens")
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
        raise AssertionError(f"the web page is not served from the image's web_root: {status} {page[:200]}")
    if get("/api/accessories", False)[0] != 401 or get("/api/accessories", True)[0] != 200:
        raise AssertionError("the HTTP API does not take exactly the .env's token")
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


def install_block(name):
    """A compose file of docs/install.md: the block marked ```yaml compose-smoke=<name>."""
    text = open(os.path.join(ROOT, "docs", "install.md")).read()
    found = re.search(rf"```yaml compose-smoke={name}\n(.*?)```", text, re.S)
    if not found:
        raise AssertionError(f"docs/install.md has no block marked ```yaml compose-smoke={name}")
    return found.group(1)


def own_service():
    """The homegate service as docs/install.md shows it for the user's own compose file."""
    import yaml
    return yaml.safe_load(install_block("own"))
