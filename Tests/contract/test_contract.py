"""The HTTP API against its own contract, and the event stream as a WebSocket, with homegate over
the simulated house (Tests/pyhouse) and a token.

schemathesis sends every route of web/openapi.yaml generated requests, good and bad, and checks
every answer: no server error, only declared status codes, content types and headers, bodies that
match their schemas, bad input refused, undeclared methods refused, the token enforced. Two of its
checks are left out, for reasons a static schema cannot help: whether a well-formed request is
accepted depends on the live home (a value must fit its characteristic's format and range, a name
must not be taken, a room must exist), and the fuzzer removes homes that later requests then name
(so "created, then not found" is the home working as it should).

Run with scripts/api-contract.sh (API_CONTRACT_EXAMPLES: examples per operation, default 30)."""

import asyncio
import json
import os
import secrets
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import websockets
from pyhouse.house import ROOT, START, House, wait_until


@pytest.fixture(scope="module")
def gateway(bin_path):
    """(URL, token) of homegate with the simulated house, ready: its devices are accessories."""
    token = f"contract-{secrets.token_hex(8)}"
    with House(bin_path, name="contract") as house:
        house.start_mosquitto()
        house.start_simulator()
        house.start_gateway(env={"HOMEGATE_HTTP_TOKEN": token})
        wait_until(lambda: house.request("GET", "/readyz", token=token)[0] == 200, START, "homegate to be ready (/readyz)")
        yield house, f"http://127.0.0.1:{house.http_port}", token
    house.remove()


def test_every_route_answers_as_the_contract_says(gateway):
    house, url, token = gateway
    schemathesis = Path(sys.executable).parent / "schemathesis"
    result = subprocess.run(
        [schemathesis, "run", "web/openapi.yaml", "--url", url, "-H", f"Authorization: Bearer {token}",
         "--exclude-path", "/api/events", "--exclude-checks", "positive_data_acceptance,ensure_resource_availability",
         "--max-examples", os.environ.get("API_CONTRACT_EXAMPLES", "30"), "--seed", "1", "--workers", "1",
         "--request-timeout", "10", "--no-color"],
        cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert house.process("homegate").poll() is None, "homegate exited under the generated requests"
    summary = result.stdout.split("SUMMARY")[-1]
    print("".join(line + "\n" for line in summary.splitlines() if any(w in line for w in ("Tested", "generated", "passed", "Selected"))))


def put(url, token, path, body):
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="PUT")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def test_the_event_stream_as_a_websocket(gateway):
    """A client with the token receives a write's event as {"event": ..., "data": ...} with the MQTT
    event's JSON, filtered by accessory; a client without the token is closed with 1008 (policy
    violation) and a reason, and gets no event."""
    _, url, token = gateway
    ws_url = url.replace("http://", "ws://") + "/api/events"

    async def refused():
        async with websockets.connect(ws_url + "?accessory=bulb", open_timeout=10) as socket:
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                message = await asyncio.wait_for(socket.recv(), timeout=10)
                pytest.fail(f"a client without the token got {message}")
            return closed.value.rcvd

    close = asyncio.run(refused())
    assert close is not None and close.code == 1008 and "token" in close.reason, f"closed with {close}, expected 1008"

    async def first_message():
        async with websockets.connect(f"{ws_url}?accessory=bulb&access_token={token}", open_timeout=10) as socket:
            # The other bulb first, then this one: the first message must be this bulb's. (The server
            # sends nothing before an event, so reading one message is not waiting for silence.)
            put(url, token, "/api/accessories/bulb_color_2/lightbulb/brightness", {"value": 33})
            put(url, token, "/api/accessories/bulb/lightbulb/brightness", {"value": 44})
            return json.loads(await asyncio.wait_for(socket.recv(), timeout=10))

    message = asyncio.run(first_message())
    assert message.get("event") == "characteristic" and message["data"].get("accessory") == "bulb" \
        and message["data"].get("value") == 44, f"unexpected first message {message}"
