"""The HAP demo server (hap-demo) as a black box for aiohomekit; see scripts/hap-test.sh."""

import os
import pathlib
import queue
import subprocess
import sys
import threading
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from pyhouse.house import free_port, stop  # noqa: E402

SETUP_CODE = "031-45-154"


def pytest_addoption(parser):
    parser.addoption("--bin-path", default=os.environ.get("HAP_BIN_PATH", ".build/release"), help="folder with hap-demo")


class Demo:
    """One hap-demo process: stdin takes `set`/`press` commands, stdout reports writes."""

    def __init__(self, binary: pathlib.Path, store: pathlib.Path, log: pathlib.Path, extra: list[str] | None = None):
        self.extra = extra or []
        self.binary = binary
        self.store = store
        self.log_path = log
        self.process = None
        self.lines: queue.Queue[str] = queue.Queue()
        self.port = 0
        self.device_id = ""

    def start(self) -> None:
        self.port = free_port()
        self.log = open(self.log_path, "a")
        self.process = subprocess.Popen(
            [str(self.binary), "--host", "127.0.0.1", "--port", str(self.port), "--store", str(self.store),
             "--setup-code", SETUP_CODE, *self.extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        threading.Thread(target=self._read, args=(self.process,), daemon=True).start()
        line = self.expect("ready", timeout=20)
        fields = dict(part.split("=", 1) for part in line.split()[1:])
        assert int(fields["port"]) == self.port
        self.device_id = fields["id"]
        self.uri = fields["uri"]

    def _read(self, process) -> None:
        for line in process.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, command: str) -> None:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def expect(self, prefix: str, timeout: float = 5) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line.startswith(prefix):
                return line
        raise AssertionError(f"hap-demo printed no line starting {prefix!r} within {timeout} s (log: {self.log_path})")

    def drain(self) -> list[str]:
        lines = []
        while not self.lines.empty():
            lines.append(self.lines.get_nowait())
        return lines

    def stop(self) -> None:
        process, self.process = self.process, None
        stop(process, "hap-demo", timeout=10)
        self.log.close()


@pytest.fixture(scope="module")
def demo(request, tmp_path_factory):
    binary = pathlib.Path(request.config.getoption("--bin-path")) / "hap-demo"
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build it first (swift build -c release --product hap-demo)")
    folder = tmp_path_factory.mktemp("hap")
    server = Demo(binary, folder / "store.json", folder / "hap-demo.log")
    server.start()
    yield server
    server.stop()
