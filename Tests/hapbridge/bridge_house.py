"""The shared house (Tests/pyhouse) with homegate's HomeKit bridge on a free loopback port, whose
next port is free too (a second bridge takes it)."""

from pyhouse.house import START, House, Subscription, free_port, free_port_pair, wait_until  # noqa: F401 (the tests' imports)

SETUP_CODE = "031-45-154"


class BridgeHouse(House):
    def __init__(self, bin_path, name: str):
        super().__init__(bin_path, name=name)
        self.hap_port = None
        self.settings = {}  # more HOMEGATE_* variables for homegate (hap.include, hap.exclude)

    @property
    def data(self):
        """homegate's data folder, where a person would run `homegate hap ...` beside it."""
        return self.workdir / "homegate"

    def environment(self, name: str = "homegate", extra=None) -> dict:
        if self.hap_port is None:
            self.hap_port = free_port_pair()
        return super().environment(name, {
            "HOMEGATE_HAP_ENABLED": "true",
            "HOMEGATE_HAP_BIND": "127.0.0.1",
            "HOMEGATE_HAP_PORT": str(self.hap_port),
            "HOMEGATE_HAP_NAME": "homegate test",
            "HOMEGATE_HAP_SETUP_CODE": SETUP_CODE,
            **self.settings,
            **(extra or {}),
        })

    def start_gateway(self, name: str = "homegate", env=None, cwd=None, ready=("HAP server listening",), timeout: float = START):
        """Ready once it listens for HTTP and HAP."""
        return super().start_gateway(name, env, cwd, ready, timeout)

    def pairing_infos(self) -> list:
        """`homegate hap pairing`, as a person runs it, parsed: one dict per bridge."""
        result = self.run_homegate("hap", "pairing", env=self.environment(), timeout=30)
        assert result.returncode == 0, result.stderr
        bridges = [{}]
        for line in result.stdout.splitlines():
            if line.startswith("bridge ") and bridges[-1]:
                bridges.append({})
            if ":" in line and not line.startswith(" "):
                key, value = line.split(":", 1)
                bridges[-1][key.strip()] = value.strip()
        return bridges

    def pairing_info(self) -> dict:
        """The first bridge's."""
        return self.pairing_infos()[0]

    def api(self, path: str):
        """The JSON body of GET `path` (this house sets no token)."""
        status, body = self.request("GET", path)
        assert status == 200, (path, status, body)
        return body
