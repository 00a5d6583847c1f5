#!/usr/bin/env python3
"""The docs' examples, run: every fenced block marked ```sh runnable in README.md, docs/ and
mappings/README.md runs against the demo house, and its output is compared with the block that
follows it when that one is marked ```text output. Then the reference pages are checked against
the program: every subcommand and flag of `homegate help` in docs/cli.md, every setting in
docs/configuration.md, every request command and topic in docs/mqtt-api.md, every route of
web/openapi.yaml in docs/http-api.md.

Each file gets a fresh house: a private Mosquitto on a free loopback port, the simulator serving
demo/devices.json and demo/groups.json (no background readings), and `homegate run` with
demo/mappings, its web page and HTTP API on a free port with the token $HOMEGATE_HTTP_TOKEN.
A block runs as a bash script (`set -eo pipefail`) in a scratch copy of the repository (links to
its files), with the binaries first on PATH, the HOMEGATE_* variables of the house set, and the
mosquitto clients and curl pointed at the house by their own config files
($XDG_CONFIG_HOME/mosquitto_pub, .../.curlrc with connect-to), so the docs can show the plain
commands a user types: `mosquitto_pub -t ...`, `curl http://127.0.0.1:8380/...`.

Markers (after ```sh runnable): `exit=N` (the status it must end with; default 0), `timeout=S`
(default 30). In an output block, `...` matches any text within a line, and a line of only `...`
any number of lines. Blocks of a file run in order, each seeing what the ones before it did.

usage: doc-test.py BIN_DIR [FILE ...]            (BIN_DIR holds homegate and homegate-simulator)
       doc-test.py BIN_DIR --coverage-only
"""
import os, re, shutil, socket, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN = "doc-test-token-0123456789abcdef"
DOC_PORT = 8380  # the port the docs show (homegate's default)
FENCE = re.compile(r"^```(\S*)[ \t]*(.*)$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def markdown_files():
    files = ["README.md", "CONTRIBUTING.md", "mappings/README.md"]
    for dirpath, _, names in os.walk(os.path.join(ROOT, "docs")):
        files += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in sorted(names) if n.endswith(".md")]
    return [f for f in files if os.path.exists(os.path.join(ROOT, f))]


def blocks(path):
    """(line, language, markers, text) of each fenced block."""
    found, lines, i = [], open(os.path.join(ROOT, path)).read().split("\n"), 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match and match.group(1):
            start, language, markers = i + 1, match.group(1), match.group(2).split()
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append((start, language, markers, "\n".join(body) + "\n"))
        elif match:  # a plain ``` block
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append((start, "", [], "\n".join(body) + "\n"))
        i += 1
    return found


def runnable(path):
    """[(line, markers, script, expected output or None)]."""
    result, found = [], blocks(path)
    for index, (line, language, markers, text) in enumerate(found):
        if language in ("sh", "bash", "console") and "runnable" in markers:
            expected = None
            if index + 1 < len(found) and found[index + 1][1] == "text" and "output" in found[index + 1][2]:
                expected = found[index + 1][3]
            result.append((line, dict(m.split("=", 1) for m in markers if "=" in m), text, expected))
    return result


def matches(expected, actual):
    """`...` is any text within a line; a line of only `...` is any lines."""
    parts = []
    for line in expected.rstrip("\n").split("\n"):
        if line.strip() == "...":
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in line.rstrip().split("...")) + r"[ \t]*\n")
    return re.fullmatch("".join(parts), actual.rstrip("\n") + "\n") is not None


class House:
    """The demo house: Mosquitto, the simulator and homegate, each a process of its own."""

    def __init__(self, bin_dir, scratch):
        self.bin, self.scratch, self.processes = bin_dir, scratch, []

    def start(self, name, argv, env=None, cwd=None):
        log = open(os.path.join(self.scratch, name + ".log"), "w")
        self.processes.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)))

    def log(self, name):
        path = os.path.join(self.scratch, name + ".log")
        return open(path, errors="replace").read() if os.path.exists(path) else ""

    def up(self):
        self.mqtt_port = free_port()
        conf = os.path.join(self.scratch, "mosquitto.conf")
        user = __import__("pwd").getpwuid(os.getuid()).pw_name
        open(conf, "w").write(f"listener {self.mqtt_port} 127.0.0.1\nallow_anonymous true\nset_tcp_nodelay true\nuser {user}\n")
        self.start("mosquitto", ["mosquitto", "-c", conf])
        wait(lambda: socket.create_connection(("127.0.0.1", self.mqtt_port), timeout=0.5).close() or True, "mosquitto")
        self.start("simulator", [os.path.join(self.bin, "homegate-simulator"), "--url", f"mqtt://127.0.0.1:{self.mqtt_port}",
                                 "--devices", os.path.join(ROOT, "demo", "devices.json"),
                                 "--groups", os.path.join(ROOT, "demo", "groups.json"), "--sensor-interval", "0"])
        self.project = os.path.join(self.scratch, "repository")
        os.makedirs(self.project)
        for entry in os.listdir(ROOT):
            if entry not in (".git", ".build", ".env", "data", "my-mappings"):
                os.symlink(os.path.join(ROOT, entry), os.path.join(self.project, entry))
        os.makedirs(os.path.join(self.project, "data"))
        with open(os.path.join(self.project, ".env"), "w") as dotenv:  # as docs/install.md makes it
            dotenv.write(f"HOMEGATE_HTTP_TOKEN={TOKEN}\n")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_") and k not in ("TZ",)}
        self.env.update({
            "PATH": self.bin + os.pathsep + os.environ["PATH"],
            "HOMEGATE_MQTT_URL": f"mqtt://127.0.0.1:{self.mqtt_port}",
            "HOMEGATE_MAPPINGS": os.path.join(ROOT, "demo", "mappings"),
            "HOMEGATE_DATABASE": os.path.join(self.project, "data", "homegate.sqlite"),
            "HOMEGATE_HTTP_LISTEN": "127.0.0.1:0",
            "HOMEGATE_HTTP_TOKEN": TOKEN,
            "HOMEGATE_HTTP_WEB_ROOT": os.path.join(ROOT, "web"),
            "XDG_CONFIG_HOME": os.path.join(self.scratch, "config"),
            "TZ": "Etc/UTC",
        })
        self.start("homegate", [os.path.join(self.bin, "homegate"), "run"], env=self.env, cwd=self.project)
        found = wait(lambda: re.search(r"listening on http://127\.0\.0\.1:(\d+)/", self.log("homegate")), "homegate's HTTP port",
                     lambda: self.processes[-1][1].poll() is not None)
        self.http_port = int(found.group(1))
        health = [os.path.join(self.bin, "homegate"), "health", "--timeout", "2"]
        wait(lambda: subprocess.run(health, env=self.env, capture_output=True).returncode == 0, "homegate health")
        # homegate listens on a free port; the docs show 8380. The clients' own config files point them at the house.
        config = self.env["XDG_CONFIG_HOME"]
        os.makedirs(config)
        for client in ("mosquitto_pub", "mosquitto_sub", "mosquitto_rr"):
            open(os.path.join(config, client), "w").write(f"-h 127.0.0.1\n-p {self.mqtt_port}\n")
        open(os.path.join(config, ".curlrc"), "w").write(
            f"connect-to = 127.0.0.1:{DOC_PORT}:127.0.0.1:{self.http_port}\nconnect-to = localhost:{DOC_PORT}:127.0.0.1:{self.http_port}\n")
        # The state the docs start from: the simulated devices' first reports are in.
        wait(lambda: '"brightness"' in subprocess.run(["mosquitto_sub", "-t", "homegate/state/bulb", "-C", "1", "-W", "3"],
                                                       env=self.env, capture_output=True, text=True).stdout, "the bulb's state")

    def down(self):
        for name, process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.processes = []


def wait(probe, what, failed=lambda: False, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            result = probe()
            if result:
                return result
        except OSError:
            pass
        if failed():
            break
        time.sleep(0.1)
    raise RuntimeError(f"the demo house did not start: no {what}")


def run_file(bin_dir, path):
    """Runs the file's runnable blocks in order; returns (blocks run, failures)."""
    tests = runnable(path)
    if not tests:
        return 0, []
    scratch = tempfile.mkdtemp(prefix="doc-test-")
    house, failures = House(bin_dir, scratch), []
    try:
        house.up()
        for line, markers, script, expected in tests:
            where = f"{path}:{line}"
            try:
                result = subprocess.run(["bash", "-c", "set -eo pipefail\n" + script], cwd=house.project, env=house.env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        timeout=float(markers.get("timeout", 30)))
            except subprocess.TimeoutExpired as timeout:
                failures.append(f"{where}: did not end within {timeout.timeout} s:\n{script}")
                continue
            if result.returncode != int(markers.get("exit", 0)):
                failures.append(f"{where}: exit status {result.returncode}, expected {markers.get('exit', 0)}:\n{script}---- output:\n{result.stdout}")
            elif expected is not None and not matches(expected, result.stdout):
                failures.append(f"{where}: the output is not the one the doc shows:\n{script}---- the doc:\n{expected}---- got:\n{result.stdout}")
    except RuntimeError as error:
        failures.append(f"{path}: {error}\n" + "\n".join(f"---- {n}.log\n{house.log(n)[-3000:]}" for n in ("mosquitto", "simulator", "homegate")))
    finally:
        house.down()
        if not failures:
            shutil.rmtree(scratch, ignore_errors=True)
    return len(tests), failures


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir = os.path.abspath(sys.argv[1])
    arguments = sys.argv[2:]
    failures = []
    if arguments != ["--coverage-only"]:
        total = 0
        for path in arguments or markdown_files():
            count, failed = run_file(bin_dir, path)
            total += count
            failures += failed
            if count:
                print(f"  {path}: {count} runnable block{'s' if count != 1 else ''}, {count - len(failed)} as the doc shows")
        print(f"doc test: {total} runnable blocks")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import doc_coverage
    failures += doc_coverage.check(bin_dir)
    for failure in failures:
        print("FAIL " + failure + "\n")
    if failures:
        sys.exit(f"doc test: {len(failures)} failure{'s' if len(failures) != 1 else ''}")
    print("doc test passed")


if __name__ == "__main__":
    main()
