"""`homegate hap unpair`, `hap reset-code` and `hap reset --identity` against real homegate, with aiohomekit as the
controller (no mDNS), in order, sharing one house:

- homegate stopped: the commands change the database; after a start the old pairing no longer
  verifies, the old code is refused and the new code printed pairs. Runs now.
- homegate running: the commands go through its HTTP API (/api/homekit), checked against the
  running homegate; the last test checks the command's client against a fake of those routes
  (the token, 404 and 401).

Run with scripts/hap-bridge-test.sh (-k cli for these alone)."""

import asyncio
import json
import os
import re
import subprocess
import urllib.parse
import urllib.request

import pytest
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.exceptions import AccessoryDisconnectedError, AuthenticationError
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

import controllers
from bridge_house import START, BridgeHouse, free_port, wait_until
from controllers import reconnected

STATE: dict = {}


class CliHouse(BridgeHouse):
    """The bridge with a random setup code (none configured: reset-code refuses to change a configured
    one) and the HTTP API on a known port (the commands find it in the same settings)."""

    def __init__(self, bin_path, name):
        super().__init__(bin_path, name)
        self.fixed_http_port = free_port()

    def environment(self, name="homegate", extra=None):
        env = super().environment(name, extra)
        env.pop("HOMEGATE_HAP_SETUP_CODE")
        env["HOMEGATE_HTTP_LISTEN"] = f"127.0.0.1:{self.fixed_http_port}"
        return env

    def homegate(self, *arguments, env=None):
        """A `homegate` command as a person runs it beside this house: (status, stdout + stderr)."""
        result = self.run_homegate(*arguments, env=env or self.environment())
        return result.returncode, result.stdout + result.stderr


@pytest.fixture(scope="module")
def house(bin_path):
    house = CliHouse(bin_path, "hap-cli")
    try:
        house.start_mosquitto()
        house.start_simulator()
        house.start_gateway()
        wait_until(lambda: "bulb" in house.accessories(), START, "the simulator's devices in /api/accessories")
        STATE["device_id"] = house.pairing_info()["device id"]
        yield house
    finally:
        house.stop_all()
        print(f"\n  logs in {house.workdir}")


def discovery(house) -> IpDiscovery:
    return controllers.discovery(house.hap_port, STATE["device_id"])


def pair(house, code) -> dict:
    async def body():
        found = discovery(house)
        finish = await found.async_start_pairing("cli")
        paired = await finish(code)
        data = dict(paired.pairing_data)
        await paired.close()
        await found.close()
        return data

    return asyncio.run(body())


def refused_code(house, code):
    async def body():
        found = discovery(house)
        finish = await found.async_start_pairing("old")
        with pytest.raises(AuthenticationError):
            await finish(code)
        await found.close()

    asyncio.run(body())


def verifies(house, data) -> bool:
    """Whether pair-verify with `data` succeeds (the accessory list is read with it)."""
    async def body():
        paired = reconnected(house.hap_port, data)
        try:
            await paired.list_accessories_and_characteristics()
            verified = True
        except AuthenticationError:
            verified = False
        try:
            await paired.close()
        except AuthenticationError:
            pass  # the refused pair-verify again, from the connection's background task
        return verified

    return asyncio.run(body())


def add_guest(house, data) -> str:
    """A second controller, not an admin, added by the admin `data` (as a shared home's member is)."""
    key = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    async def body():
        paired = reconnected(house.hap_port, data)
        await paired.add_pairing("guest-controller", key.hex(), "User")
        await paired.close()

    asyncio.run(body())
    return "guest-controller"


def printed_code(output) -> str:
    found = re.search(r"^setup code: (\d{3}-\d{2}-\d{3})$", output, re.M)
    assert found, output
    return found.group(1)


def test_unpair_all_and_reset_code_while_homegate_is_stopped(house):
    old_code = house.pairing_info()["setup code"]
    first = pair(house, old_code)
    assert verifies(house, first)
    house.stop_gateway()

    status, output = house.homegate("hap", "unpair", "--all")
    assert status == 0, output
    assert "removed 1 pairing" in output and first["iOSPairingId"] in output, output
    assert "left: none; the bridge is open to pairing again" in output, output

    status, output = house.homegate("hap", "reset-code")
    assert status == 0, output
    new_code = printed_code(output)
    assert new_code != old_code
    assert "X-HM://" in output and "█" in output, "the setup URI and its QR code"
    assert house.pairing_info()["setup code"] == new_code

    house.start_gateway()
    assert not verifies(house, first), "the removed pairing still verifies"
    refused_code(house, old_code)
    STATE["pairing"] = pair(house, new_code)
    STATE["code"] = new_code
    assert verifies(house, STATE["pairing"])


def test_removing_the_last_admin_while_stopped_removes_every_pairing(house):
    admin = STATE["pairing"]
    guest = add_guest(house, admin)
    house.stop_gateway()

    status, output = house.homegate("hap", "unpair", "nobody-paired-this")
    assert status == 1, output
    assert "bridge 1 has no paired controller 'nobody-paired-this'" in output, output

    status, output = house.homegate("hap", "unpair", admin["iOSPairingId"])
    assert status == 0, output
    assert "removed 2 pairings" in output and guest in output, output
    assert "was the last admin" in output and "left: none" in output, output

    house.start_gateway()
    assert not verifies(house, admin)
    STATE["pairing"] = pair(house, STATE["code"])  # open to pairing again, with the same code


def test_reset_code_is_refused_while_a_setup_code_is_configured(house):
    env = house.environment()
    env["HOMEGATE_HAP_SETUP_CODE"] = "031-45-154"
    status, output = house.homegate("hap", "reset-code", env=env)
    assert status == 78, output
    assert "hap.setup_code is configured" in output and "remove it" in output, output


def test_while_running_without_the_http_api_it_says_what_to_do(house):
    env = house.environment()
    env["HOMEGATE_HTTP_LISTEN"] = "off"  # the command's settings; homegate itself runs with the API
    status, output = house.homegate("hap", "unpair", "--all", env=env)
    assert status == 1, output
    assert "homegate is running" in output and "HTTP API is off" in output and "web page" in output, output
    assert verifies(house, STATE["pairing"]), "nothing was changed"


def homekit_api(house):
    """GET /api/homekit of the running homegate."""
    with urllib.request.urlopen(f"http://127.0.0.1:{house.http_port}/api/homekit", timeout=10) as response:
        return json.loads(response.read())


def test_while_running_reset_code_goes_through_the_http_api(house):
    before = homekit_api(house)["bridges"][0]
    status, output = house.homegate("hap", "reset-code")
    assert status == 0, output
    code = printed_code(output)
    assert code != before["setup_code"]
    assert homekit_api(house)["bridges"][0]["setup_code"] == code
    STATE["code"] = code


def test_while_running_unpair_goes_through_the_http_api(house):
    homekit_api(house)
    current = STATE["pairing"]
    status, output = house.homegate("hap", "unpair", current["iOSPairingId"])
    assert status == 0, output
    assert "removed 1 pairing" in output and "left: none" in output, output
    assert homekit_api(house)["bridges"][0]["controllers"] == []
    assert not verifies(house, current), "the removed pairing still verifies"
    STATE["pairing"] = pair(house, STATE["code"])  # the running bridge takes the new code at once

    status, output = house.homegate("hap", "unpair", "--all")
    assert status == 0 and "removed 1 pairing" in output, output
    status, output = house.homegate("hap", "unpair", "unknown-controller")
    assert status == 1, output


def refused_as_another_accessory(house, data) -> str:
    """How pair-verify with `data` fails against a bridge with a new identity: aiohomekit finds
    another accessory's pairing id (or signature) in M2. An empty string when it verifies."""
    async def body():
        paired = reconnected(house.hap_port, data)
        try:
            await paired.list_accessories_and_characteristics()
            return ""
        except AuthenticationError as error:
            return f"AuthenticationError: {error}"
        except AccessoryDisconnectedError as error:
            assert "IncorrectPairingIdError" in str(error), error
            return "IncorrectPairingIdError"
        finally:
            try:
                await paired.close()
            except (AuthenticationError, AccessoryDisconnectedError):
                pass

    return asyncio.run(body())


def test_hap_reset_needs_to_be_told_what(house):
    status, output = house.homegate("hap", "reset")
    assert status == 64 and "--identity" in output, output


def test_while_running_reset_identity_makes_a_new_accessory(house):
    before = homekit_api(house)["bridges"][0]
    old = pair(house, STATE["code"])
    assert verifies(house, old)
    status, output = house.homegate("hap", "reset", "--identity")
    assert status == 0, output
    after = homekit_api(house)["bridges"][0]
    assert after["device_id"] != before["device_id"], after
    assert f"device id: {before['device_id']} → {after['device_id']}" in output and "pairings removed: 1" in output, output
    assert after["controllers"] == [] and after["configuration_number"] == 1, after
    code = printed_code(output)
    assert code == after["setup_code"] and code != STATE["code"]
    assert refused_as_another_accessory(house, old), "the pairing with the old identity still verifies"
    STATE["device_id"] = after["device_id"]
    refused_code(house, STATE["code"])
    STATE["pairing"] = pair(house, code)
    STATE["code"] = code
    assert verifies(house, STATE["pairing"])
    assert homekit_api(house)["bridges"][0]["paired"] is True


def test_while_stopped_reset_identity_changes_the_database(house):
    old = STATE["pairing"]
    before = house.pairing_info()
    house.stop_gateway()
    status, output = house.homegate("hap", "reset", "--identity")
    assert status == 0, output
    after = house.pairing_info()
    assert after["device id"] != before["device id"] and after["c#"] == "1", after
    assert after["paired"].startswith("no"), after
    house.start_gateway()
    assert refused_as_another_accessory(house, old), "the pairing with the old identity still verifies"
    STATE["device_id"] = after["device id"]
    STATE["code"] = printed_code(output)
    STATE["pairing"] = pair(house, STATE["code"])
    assert verifies(house, STATE["pairing"])


class FakeHomeKitAPI:
    """The /api/homekit routes with the documented shapes, in this process, to check the command's
    HTTP client (paths, percent-encoding, the token, answers and refusals) before homegate has them."""

    def __init__(self, token):
        import http.server
        import threading

        self.requests = []
        self.bridge = {"number": 1, "name": "homegate", "port": 51826, "device_id": "AA:BB:CC:DD:EE:01",
                       "setup_code": "031-45-154", "setup_uri": "X-HM://0023ISYWYABCD", "configuration_number": 3,
                       "accessories": 12, "paired": True, "advertisement": {"state": "advertised", "detail": ""},
                       "controllers": [{"id": "phone/1 é", "admin": True}, {"id": "guest", "admin": False}]}
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def handle_any(self):
                api.requests.append((self.command, self.path, self.headers.get("Authorization")))
                if self.headers.get("Authorization") != f"Bearer {token}":
                    return self.answer(401, {"error": "the token is not this gateway's", "kind": "unauthorized"})
                bridge = api.bridge
                if (self.command, self.path) == ("GET", "/api/homekit"):
                    return self.answer(200, {"enabled": True, "bridges": [bridge]})
                if (self.command, self.path) == ("POST", "/api/homekit/bridges/1/setup-code"):
                    bridge["setup_code"] = "518-07-263"
                    return self.answer(200, bridge)
                if (self.command, self.path) == ("POST", "/api/homekit/bridges/1/identity"):
                    bridge.update({"device_id": "AA:BB:CC:DD:EE:02", "setup_code": "629-11-480", "controllers": [],
                                   "configuration_number": 1, "paired": False})
                    return self.answer(200, bridge)
                if (self.command, self.path) == ("DELETE", "/api/homekit/bridges/1/pairings"):
                    bridge["controllers"] = []
                    return self.answer(200, bridge)
                prefix = "/api/homekit/bridges/1/pairings/"
                if self.command == "DELETE" and self.path.startswith(prefix):
                    wanted = urllib.parse.unquote(self.path[len(prefix):])
                    if not any(c["id"] == wanted for c in bridge["controllers"]):
                        return self.answer(404, {"error": f"bridge 1 has no paired controller '{wanted}'", "kind": "not_found"})
                    # The last admin: every pairing goes.
                    bridge["controllers"] = []
                    return self.answer(200, bridge)
                return self.answer(404, {"error": f"no route {self.path}", "kind": "not_found"})

            do_GET = do_POST = do_DELETE = handle_any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_next_to_a_running_homegate_the_commands_speak_its_http_api(bin_path, tmp_path):
    """A held database lock stands for the running homegate; a fake API answers in its place."""
    import fcntl

    token = "test-token-8812"
    api = FakeHomeKitAPI(token)
    database = tmp_path.resolve() / "homegate.sqlite"
    lock = open(f"{database}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEGATE_")}
    env.update({"HOMEGATE_DATABASE": str(database), "HOMEGATE_HTTP_LISTEN": f"0.0.0.0:{api.port}", "HOMEGATE_HTTP_TOKEN": token})

    def homegate(*arguments, environment=None):
        result = subprocess.run([str(bin_path / "homegate"), *arguments], env=environment or env, capture_output=True,
                                text=True, timeout=60)
        return result.returncode, result.stdout + result.stderr

    try:
        status, output = homegate("hap", "reset-code")
        assert status == 0, output
        assert printed_code(output) == "518-07-263" and "X-HM://0023ISYWYABCD" in output, output
        assert "paired with 2 controllers" in output, output
        assert api.requests[-1] == ("POST", "/api/homekit/bridges/1/setup-code", f"Bearer {token}")

        status, output = homegate("hap", "unpair", "nobody")
        assert status == 1 and "bridge 1 has no paired controller 'nobody'" in output, output

        status, output = homegate("hap", "unpair", "phone/1 é")
        assert status == 0, output
        assert api.requests[-1][:2] == ("DELETE", "/api/homekit/bridges/1/pairings/phone%2F1%20%C3%A9")
        assert "removed 2 pairings" in output and "was the last admin" in output and "left: none" in output, output

        status, output = homegate("hap", "unpair", "--all")
        assert status == 0 and "no pairing removed" in output, output
        assert api.requests[-1][:2] == ("DELETE", "/api/homekit/bridges/1/pairings")

        status, output = homegate("hap", "reset", "--identity")
        assert status == 0, output
        assert api.requests[-1] == ("POST", "/api/homekit/bridges/1/identity", f"Bearer {token}")
        assert "device id: AA:BB:CC:DD:EE:01 → AA:BB:CC:DD:EE:02" in output and printed_code(output) == "629-11-480", output

        wrong = dict(env, HOMEGATE_HTTP_TOKEN="not-the-token")
        status, output = homegate("hap", "unpair", "--all", environment=wrong)
        assert status == 1 and "refused the token" in output, output
    finally:
        api.close()
        lock.close()
