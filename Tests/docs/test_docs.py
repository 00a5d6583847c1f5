"""The docs' examples, run: every fenced block marked ```sh runnable in README.md, CONTRIBUTING.md,
docs/ and mappings/README.md runs against the demo house, and its output is compared with the block
that follows it when that one is marked ```text output. Then the reference pages are checked
against the program (doc_coverage.py): every subcommand and flag of `homegate help` in docs/cli.md,
every setting in docs/configuration.md, every request command and topic in docs/mqtt-api.md, every
route of web/openapi.yaml in docs/http-api.md.

Each file gets a fresh house (Tests/pyhouse): a private Mosquitto on a free loopback port, the
simulator serving demo/devices.json and demo/groups.json (no background readings), and `homegate
run` with demo/mappings, its web page and HTTP API on a free port with the token TOKEN. A block runs
as a bash script (`set -eo pipefail`) in a scratch copy of the repository (links to its files),
with the binaries first on PATH, the HOMEGATE_* variables of the house set, and the mosquitto
clients and curl pointed at the house by their own config files ($XDG_CONFIG_HOME/mosquitto_pub,
.../.curlrc with connect-to), so the docs can show the plain commands a user types: `mosquitto_pub
-t ...`, `curl http://127.0.0.1:8380/...`.

Markers (after ```sh runnable): `exit=N` (the status it must end with; default 0), `timeout=S`
(default 30). In an output block, `...` matches any text within a line, and a line of only `...`
any number of lines. Blocks of a file run in order, each seeing what the ones before it did.

Run with scripts/doc-test.sh [BIN_PATH] [pytest arguments…]; one page: -k docs/cli.md."""

import os
import re
import subprocess

import doc_coverage
import pytest
from pyhouse.house import ROOT, House, wait_until

TOKEN = "doc-test-token-0123456789abcdef"
DOC_PORT = 8380  # the port the docs show (homegate's default)
FENCE = re.compile(r"^```(\S*)[ \t]*(.*)$")
START = 30  # seconds for the house to be as the docs start from


def markdown_files():
    files = ["README.md", "CONTRIBUTING.md", "mappings/README.md"]
    for dirpath, _, names in os.walk(ROOT / "docs"):
        files += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in sorted(names) if n.endswith(".md")]
    return [f for f in files if (ROOT / f).exists()]


def blocks(path):
    """(line, language, markers, text) of each fenced block."""
    found, lines, i = [], (ROOT / path).read_text().split("\n"), 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match:
            start, language = i + 1, match.group(1)
            markers = match.group(2).split() if language else []
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append((start, language, markers, "\n".join(body) + "\n"))
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


class DemoHouse(House):
    """The house a page's blocks run against, in a scratch copy of the repository."""

    def up(self):
        self.start_mosquitto(conf="set_tcp_nodelay true")
        self.start_simulator()
        self.project = self.workdir / "repository"
        self.project.mkdir()
        for entry in os.listdir(ROOT):
            if entry not in (".git", ".build", ".env", "data", "my-mappings"):
                os.symlink(ROOT / entry, self.project / entry)
        (self.project / "data").mkdir()
        (self.project / ".env").write_text(f"HOMEGATE_HTTP_TOKEN={TOKEN}\n")  # as docs/install.md makes it
        config = self.workdir / "config"
        self.shell_env = {k: v for k, v in self.environment().items() if k != "TZ"}
        self.shell_env.update({
            "PATH": f"{self.bin_path}{os.pathsep}{os.environ['PATH']}",
            "HOMEGATE_DATABASE": str(self.project / "data" / "homegate.sqlite"),
            "HOMEGATE_HTTP_TOKEN": TOKEN,
            "XDG_CONFIG_HOME": str(config),
            "TZ": "Etc/UTC",
        })
        gateway = self.start_gateway(env=self.shell_env, cwd=self.project, timeout=START)
        health = [self.bin_path / "homegate", "health", "--timeout", "2"]
        wait_until(lambda: subprocess.run(health, env=gateway.env, capture_output=True).returncode == 0, START, "homegate health")
        # homegate listens on a free port; the docs show 8380. The clients' own config files point them at the house.
        config.mkdir()
        for client in ("mosquitto_pub", "mosquitto_sub", "mosquitto_rr"):
            (config / client).write_text(f"-h 127.0.0.1\n-p {self.mqtt_port}\n")
        (config / ".curlrc").write_text(f"connect-to = 127.0.0.1:{DOC_PORT}:127.0.0.1:{self.http_port}\n"
                                        f"connect-to = localhost:{DOC_PORT}:127.0.0.1:{self.http_port}\n")
        self.shell_env = gateway.env
        # The state the docs start from: the simulated devices' first reports are in.
        first = ["mosquitto_sub", "-t", "homegate/state/bulb", "-C", "1", "-W", "3"]
        wait_until(lambda: '"brightness"' in subprocess.run(first, env=self.shell_env, capture_output=True, text=True).stdout,
                   START, "the bulb's state")


PAGES = [path for path in markdown_files() if runnable(path)]


@pytest.mark.parametrize("page", PAGES)
def test_the_runnable_blocks_print_what_the_page_shows(page, bin_path):
    failures = []
    with DemoHouse(bin_path, name="doc-test") as house:
        house.up()
        for line, markers, script, expected in runnable(page):
            where = f"{page}:{line}"
            try:
                result = subprocess.run(["bash", "-c", "set -eo pipefail\n" + script], cwd=house.project, env=house.shell_env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        timeout=float(markers.get("timeout", 30)))
            except subprocess.TimeoutExpired as timeout:
                failures.append(f"{where}: did not end within {timeout.timeout} s:\n{script}")
                continue
            if result.returncode != int(markers.get("exit", 0)):
                failures.append(f"{where}: exit status {result.returncode}, expected {markers.get('exit', 0)}:\n{script}---- output:\n{result.stdout}")
            elif expected is not None and not matches(expected, result.stdout):
                failures.append(f"{where}: the output is not the one the doc shows:\n{script}---- the doc:\n{expected}---- got:\n{result.stdout}")
    assert not failures, "\n\n".join(failures)
    house.remove()


def test_the_reference_pages_cover_the_program(bin_path):
    failures = doc_coverage.check(str(bin_path))
    assert not failures, "\n\n".join(failures)
