"""aiohomekit 4.0.1 (the library Home Assistant's HomeKit Controller uses) drives hap-demo over
loopback, without mDNS: IpDiscovery gets the address and port directly and the controller gets a
stub AsyncZeroconf, as aiohomekit's own tests do. The tests run in order and share one pairing."""

import asyncio
import contextlib
import json
import random
import socket
import statistics
import time
import uuid
from unittest.mock import MagicMock

import pytest
from aiohomekit.characteristic_cache import CharacteristicCacheMemory
from aiohomekit.controller.ip.controller import IpController
from aiohomekit.controller.ip.discovery import IpDiscovery
from aiohomekit.controller.ip.pairing import IpPairing
from aiohomekit.exceptions import (
    AccessoryDisconnectedError,
    BusyError,
    AlreadyPairedError,
    AuthenticationError,
    HttpErrorResponse,
    UnavailableError,
    UnpairedError,
)
from aiohomekit.model.feature_flags import FeatureFlags
from aiohomekit.model.status_flags import StatusFlags
from aiohomekit.zeroconf import HomeKitService
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from conftest import SETUP_CODE

STATE: dict = {}
TIMINGS: dict = {}


def controller() -> IpController:
    return IpController(char_cache=CharacteristicCacheMemory(), zeroconf_instance=MagicMock())


def discovery(demo) -> IpDiscovery:
    service = HomeKitService(
        name="hap-demo", id=demo.device_id, model="hap-demo", feature_flags=FeatureFlags(0),
        status_flags=StatusFlags.UNPAIRED, config_num=1, state_num=1, category=2, protocol_version="1.1",
        type="_hap._tcp.local.", address="127.0.0.1", addresses=["127.0.0.1"], port=demo.port)
    return IpDiscovery(controller(), service)


def pairing(demo, data: dict | None = None) -> IpPairing:
    data = dict(data or STATE["pairing"])
    data["AccessoryIP"] = "127.0.0.1"
    data["AccessoryIPs"] = ["127.0.0.1"]
    data["AccessoryPort"] = demo.port
    return IpPairing(controller(), data)


def run(coroutine):
    return asyncio.run(coroutine)


def test_identify_while_unpaired(demo):
    async def body():
        found = discovery(demo)
        await found.async_identify()
        await found.close()

    run(body())
    assert demo.expect("identify").endswith("bridge")


def test_wrong_setup_code_is_refused(demo):
    async def body():
        found = discovery(demo)
        finish = await found.async_start_pairing("wrong")
        with pytest.raises(AuthenticationError):
            await finish("111-22-333")
        await found.close()

    run(body())


def test_a_second_pair_setup_is_busy_while_one_is_open(demo):
    async def body():
        first = discovery(demo)
        await first.async_start_pairing("first")
        second = discovery(demo)
        with pytest.raises(BusyError):
            await second.async_start_pairing("second")
        await second.close()
        # Closing the first connection ends its exchange.
        await first.close()
        await asyncio.sleep(0.1)
        third = discovery(demo)
        await third.async_start_pairing("third")
        await third.close()

    run(body())


def test_unverified_requests_and_malformed_http(demo):
    def exchange(data: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", demo.port), timeout=5) as connection:
            connection.sendall(data)
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                answer += chunk
            return answer

    assert exchange(b"GET /accessories HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 470 ")
    assert exchange(b"GET /characteristics?id=2.9 HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 470 ")
    assert exchange(b"\x00\x01garbage that is not HTTP\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    assert exchange(b"POST /pair-setup HTTP/1.1\r\nContent-Length: 3\r\n\r\n\x06\x05\x01").startswith(b"HTTP/1.1 400 ")
    assert exchange(b"GET /nothing HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 404 ")


def test_pairing_with_the_right_code(demo):
    async def body():
        found = discovery(demo)
        started = time.perf_counter()
        finish = await found.async_start_pairing("demo")
        paired = await finish(SETUP_CODE)
        TIMINGS["pair-setup"] = time.perf_counter() - started
        STATE["pairing"] = dict(paired.pairing_data)
        await paired.close()

    run(body())
    assert STATE["pairing"]["AccessoryPairingID"] == demo.device_id
    TIMINGS["  of which aiohomekit's own SRP (Python)"] = client_srp_seconds()


def client_srp_seconds() -> float:
    """What the controller's side of SRP costs in Python, to tell it from the server's share."""
    from aiohomekit.crypto import srp

    server = srp.SrpServer("Pair-Setup", SETUP_CODE)
    started = time.perf_counter()
    client = srp.SrpClient("Pair-Setup", SETUP_CODE)
    client.set_salt(bytearray(server.salt_b))
    client.set_server_public_key(server.get_public_key_bytes())
    client.get_proof_bytes()
    return time.perf_counter() - started


def test_second_pair_setup_is_refused(demo):
    async def body():
        found = discovery(demo)
        with pytest.raises(UnavailableError):
            await found.async_start_pairing("again")
        await found.close()
        # HAP answers 400 {"status": -70401}; aiohomekit raises on the 400 before reading the body.
        with pytest.raises((AlreadyPairedError, HttpErrorResponse)) as refused:
            await discovery(demo).async_identify()
        if isinstance(refused.value, HttpErrorResponse):
            assert refused.value.response.code == 400
            assert json.loads(refused.value.response.body) == {"status": -70401}

    run(body())


def test_accessories_are_listed(demo):
    async def body():
        paired = pairing(demo)
        accessories = await paired.list_accessories_and_characteristics()
        await paired.close()
        return accessories

    accessories = run(body())
    by_aid = {accessory["aid"]: accessory for accessory in accessories}
    assert sorted(by_aid) == [1, 2, 3, 4]
    assert [short(service["type"]) for service in by_aid[1]["services"]] == ["3E", "A2"]
    lightbulb = next(service for service in by_aid[2]["services"] if short(service["type"]) == "43")
    brightness = next(c for c in lightbulb["characteristics"] if c["iid"] == 10)
    assert brightness["format"] == "int"
    assert (brightness["minValue"], brightness["maxValue"], brightness["minStep"]) == (0, 100, 1)
    assert brightness["unit"] == "percentage"
    assert brightness["perms"] == ["pr", "pw", "ev"]
    switch = next(service for service in by_aid[3]["services"] if short(service["type"]) == "89")
    assert switch["characteristics"][0]["valid-values"] == [0, 1, 2]


def short(uuid_text: str) -> str:
    """aiohomekit writes types as full UUIDs; HAP's short form drops Apple's base and leading zeros."""
    if uuid_text.upper().endswith("-0000-1000-8000-0026BB765291"):
        return uuid_text.split("-")[0].lstrip("0").upper()
    return uuid_text


def test_reads(demo):
    async def body():
        paired = pairing(demo)
        values = await paired.get_characteristics([(2, 9), (2, 10), (1, 3), (4, 9)])
        await paired.close()
        return values

    values = run(body())
    assert values[(2, 9)]["value"] is False
    assert values[(2, 10)]["value"] == 0
    assert values[(1, 3)]["value"] == "homegate"
    assert values[(4, 9)]["status"] == -70402


def test_writes_reach_the_provider(demo):
    demo.drain()

    async def body():
        paired = pairing(demo)
        result = await paired.put_characteristics([(2, 9, True), (2, 10, 42)])
        values = await paired.get_characteristics([(2, 9), (2, 10)])
        await paired.close()
        return result, values

    result, values = run(body())
    assert result == {}
    assert demo.expect("write 2.9").startswith("write 2.9 true")
    assert demo.expect("write 2.10").startswith("write 2.10 42")
    assert values[(2, 9)]["value"] is True and values[(2, 10)]["value"] == 42


def test_invalid_writes_get_their_status(demo):
    async def body():
        paired = pairing(demo)
        out_of_range = await paired.put_characteristics([(2, 10, 101)])
        read_only = await paired.put_characteristics([(2, 11, "renamed")])
        unreachable = await paired.put_characteristics([(4, 9, True)])
        mixed = await paired.put_characteristics([(2, 9, True), (2, 10, 500)])
        await paired.close()
        return out_of_range, read_only, unreachable, mixed

    out_of_range, read_only, unreachable, mixed = run(body())
    assert out_of_range[(2, 10)]["status"] == -70410
    assert read_only[(2, 11)]["status"] == -70404
    assert unreachable[(4, 9)]["status"] == -70402
    assert mixed[(2, 10)]["status"] == -70410
    assert mixed[(2, 9)]["status"] == 0


def test_read_with_metadata_and_timed_writes(demo):
    demo.drain()

    async def body():
        paired = pairing(demo)
        await paired.list_accessories_and_characteristics()
        connection = paired.connection
        meta = await connection.get_json("/characteristics?id=2.10,2.12&meta=1&perms=1&type=1&ev=1")
        untimed = await connection.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 12, "value": 90}]})
        prepared = await connection.put_json("/prepare", {"ttl": 2000, "pid": 42})
        timed = await connection.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 12, "value": 120}], "pid": 42})
        replayed = await connection.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 12, "value": 130}], "pid": 42})
        await connection.put_json("/prepare", {"ttl": 50, "pid": 43})
        await asyncio.sleep(0.2)
        expired = await connection.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 12, "value": 140}], "pid": 43})
        value = await paired.get_characteristics([(2, 12)])
        await paired.close()
        return meta, untimed, prepared, timed, replayed, expired, value

    meta, untimed, prepared, timed, replayed, expired, value = run(body())
    brightness = meta["characteristics"][0]
    assert brightness == {
        "aid": 2, "iid": 10, "value": 42, "type": "8", "perms": ["pr", "pw", "ev"], "format": "int",
        "unit": "percentage", "minValue": 0, "maxValue": 100, "minStep": 1, "ev": False}
    assert meta["characteristics"][1]["perms"] == ["pr", "pw", "ev", "tw"]
    assert untimed["characteristics"][0]["status"] == -70410
    assert prepared == {"status": 0}
    assert timed == {}
    assert replayed["characteristics"][0]["status"] == -70410
    assert expired["characteristics"][0]["status"] == -70410
    assert value[(2, 12)]["value"] == 120
    assert demo.expect("write 2.12").startswith("write 2.12 120")


def test_write_response_and_events_without_ev_permission(demo):
    async def body():
        paired = pairing(demo)
        await paired.list_accessories_and_characteristics()
        connection = paired.connection
        answered = await connection.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 13, "value": "hi", "r": True}]})
        no_events = await connection.put_json("/characteristics", {"characteristics": [{"aid": 2, "iid": 11, "ev": True}]})
        await paired.close()
        return answered, no_events

    answered, no_events = run(body())
    assert answered == {"characteristics": [{"aid": 2, "iid": 13, "status": 0, "value": "hi"}]}
    assert no_events["characteristics"][0]["status"] == -70406


def test_pairings_can_be_added_and_listed(demo):
    key = ed25519.Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
    private = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()).hex()
    second_id = str(uuid.uuid4())

    async def body():
        admin = pairing(demo)
        await admin.add_pairing(second_id, public, "User")
        listed = await admin.list_pairings()
        await admin.close()
        second = pairing(demo, {**STATE["pairing"], "iOSPairingId": second_id, "iOSDeviceLTSK": private, "iOSDeviceLTPK": public})
        value = await second.get_characteristics([(2, 10)])
        with pytest.raises(UnpairedError):
            await second.list_pairings()
        await second.close()
        return listed, value

    listed, value = run(body())
    by_id = {entry["pairingId"]: entry for entry in listed}
    assert by_id[STATE["pairing"]["iOSPairingId"]]["controllerType"] == "admin"
    assert by_id[second_id]["controllerType"] == "regular"
    assert value[(2, 10)]["value"] == 42
    STATE["second"] = {**STATE["pairing"], "iOSPairingId": second_id, "iOSDeviceLTSK": private, "iOSDeviceLTPK": public}


def capture_raw_events(paired: IpPairing) -> list:
    """Every EVENT body as the server sent it (aiohomekit's listeners see a dict per EVENT, which
    keeps one value per characteristic)."""
    raw = []
    original = paired.event_received

    def capture(event):
        raw.append((time.perf_counter(), event["characteristics"]))
        original(event)

    paired.event_received = capture
    return raw


def test_events_first_change_at_once_then_gathered_and_buttons_immediate(demo):
    async def body():
        admin = pairing(demo)
        second = pairing(demo, STATE["second"])
        admin_events, second_events = [], []
        admin.dispatcher_connect(lambda event: admin_events.append((time.perf_counter(), event)))
        second.dispatcher_connect(lambda event: second_events.append((time.perf_counter(), event)))
        raw = capture_raw_events(admin)
        await admin.subscribe([(2, 9), (2, 10), (3, 9)])
        await second.subscribe([(2, 9)])
        await asyncio.sleep(0.5)  # past any window the subscriptions' own echoes opened
        admin_events.clear()
        raw.clear()

        # The first change after a quiet window goes at once; the one right after it waits for the
        # window's end (240 ms), and the two are two EVENTs.
        sent = time.perf_counter()
        demo.send("set 2.10 55")
        demo.send("set 2.10 56")
        await wait_for(raw, lambda event: any(item["value"] == 56 for item in event), 2)
        first_latency = raw[0][0] - sent
        gathered_latency = raw[1][0] - sent
        values = [[item["value"] for item in event] for _, event in raw]

        # A button press goes out at once.
        await asyncio.sleep(0.3)
        admin_events.clear()
        sent = time.perf_counter()
        demo.send("press 3.9 0")
        await wait_for(admin_events, lambda event: (3, 9) in event, 2)
        button_latency = admin_events[0][0] - sent

        # The writer's own connection gets no event for its write; the other controller does.
        admin_events.clear()
        second_events.clear()
        await admin.put_characteristics([(2, 9, False)])
        admin_events.clear()  # aiohomekit tells its own listeners about a successful write
        await wait_for(second_events, lambda event: (2, 9) in event, 2)
        await asyncio.sleep(0.4)
        await admin.close()
        await second.close()
        return first_latency, gathered_latency, values, button_latency, admin_events, second_events

    first_latency, gathered_latency, values, button_latency, admin_after_write, second_events = run(body())
    TIMINGS["event (first change)"] = first_latency
    TIMINGS["event (gathered)"] = gathered_latency
    TIMINGS["event (button)"] = button_latency
    assert values == [[55], [56]]
    assert first_latency < 0.1
    assert 0.2 < gathered_latency < 0.25 + 0.1
    assert button_latency < 0.1
    assert not [event for _, event in admin_after_write if (2, 9) in event]
    assert second_events[0][1][(2, 9)]["value"] is False


def test_intermediate_values_are_kept_newest_first(demo):
    async def body():
        admin = pairing(demo)
        raw = capture_raw_events(admin)
        await admin.subscribe([(2, 10)])
        await asyncio.sleep(0.5)
        raw.clear()
        # 10 goes at once; 20, 30, 20 gather (the second 20 in a row is the same value, sent once).
        for value in (10, 20, 30, 20, 20):
            demo.send(f"set 2.10 {value}")
        await wait_for(raw, lambda event: len(event) > 1, 2)
        await asyncio.sleep(0.4)
        await admin.close()
        return [[item["value"] for item in event] for _, event in raw]

    assert run(body()) == [[10], [20, 30, 20]]


def test_presses_during_a_request_queue_behind_its_response(demo):
    async def body():
        admin = pairing(demo)
        events = []
        admin.dispatcher_connect(lambda event: events.append(event))
        await admin.subscribe([(3, 9)])
        await asyncio.sleep(0.1)
        events.clear()
        demo.send("hold")
        demo.expect("ok hold")
        read = asyncio.create_task(admin.get_characteristics([(2, 10)]))
        await asyncio.to_thread(demo.expect, "held")
        # Three presses while the read is answered, two of them the same.
        for value in (0, 0, 1):
            demo.send(f"press 3.9 {value}")
            await asyncio.to_thread(demo.expect, "ok press")
        demo.send("release")
        answer = await read
        presses = await wait_for_presses(events, 3, 2)
        await admin.close()
        return answer, presses

    answer, presses = run(body())
    assert answer[(2, 10)]["value"] is not None
    assert presses == [0, 0, 1]


async def wait_for_presses(events: list, count: int, timeout: float) -> list:
    """The button's values in the order the EVENTs came, once there are `count` of them."""
    deadline = time.perf_counter() + timeout
    while True:
        presses = [event[(3, 9)]["value"] for event in events if (3, 9) in event]
        if len(presses) >= count or time.perf_counter() > deadline:
            return presses
        await asyncio.sleep(0.005)


async def wait_for(events: list, predicate, timeout: float) -> None:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if any(predicate(event) for _, event in events):
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"no matching event within {timeout} s; got {events}")


def test_many_controllers_at_once(demo):
    async def body():
        controllers = [pairing(demo) for _ in range(8)]
        received = [[] for _ in controllers]
        for index, paired in enumerate(controllers):
            paired.dispatcher_connect(lambda event, index=index: received[index].append(event))
        reads = await asyncio.gather(*(paired.get_characteristics([(2, 10), (1, 5)]) for paired in controllers))
        await asyncio.gather(*(paired.subscribe([(2, 10)]) for paired in controllers))
        demo.send("set 2.10 77")
        deadline = time.perf_counter() + 2
        while time.perf_counter() < deadline and not all(any((2, 10) in e for e in events) for events in received):
            await asyncio.sleep(0.01)
        await asyncio.gather(*(paired.close() for paired in controllers))
        return reads, received

    reads, received = run(body())
    assert all(read[(1, 5)]["value"] == "Demo Bridge" for read in reads)
    assert all(any(event.get((2, 10), {}).get("value") == 77 for event in events) for events in received)


def test_removed_pairing_is_closed_and_refused(demo):
    async def body():
        second = pairing(demo, STATE["second"])
        await second.get_characteristics([(2, 10)])
        admin = pairing(demo)
        await admin.remove_pairing(STATE["second"]["iOSPairingId"])
        listed = await admin.list_pairings()
        await admin.close()
        await asyncio.sleep(0.2)
        closed = not second.connection.is_connected
        # aiohomekit reconnects by itself; its pair-verify is refused now, which close() reports.
        with contextlib.suppress(AuthenticationError):
            await second.close()
        again = pairing(demo, STATE["second"])
        with pytest.raises((AccessoryDisconnectedError, AuthenticationError)):
            await again.get_characteristics([(2, 10)])
        with contextlib.suppress(AuthenticationError):
            await again.close()
        return listed, closed

    listed, closed = run(body())
    assert [entry["pairingId"] for entry in listed] == [STATE["pairing"]["iOSPairingId"]]
    assert closed


def test_pair_verify_time(demo):
    async def body():
        times = []
        for _ in range(10):
            paired = pairing(demo)
            started = time.perf_counter()
            await paired.get_characteristics([(2, 10)])
            times.append(time.perf_counter() - started)
            await paired.close()
        return times

    times = run(body())
    TIMINGS["pair-verify + first read (median of 10)"] = statistics.median(times)


def test_malformed_bodies_get_errors_and_the_server_stays(demo):
    async def body():
        paired = pairing(demo)
        await paired.list_accessories_and_characteristics()
        connection = paired.connection
        answers = []
        for raw in [b"{", b"[]", b'{"characteristics": "x"}', b'{"characteristics": [{"aid": "a", "iid": 1}]}',
                    b'{"characteristics": []}', b"\xff\xfe"]:
            response = await raw_request(connection, "PUT", "/characteristics", raw, "application/hap+json")
            answers.append((response.code, json.loads(response.body)))
        unknown = await connection.put_json("/characteristics", {"characteristics": [{"aid": 9, "iid": 9, "value": 1}]})
        tlv = await raw_request(connection, "POST", "/pairings", b"\x06", "application/pairing+tlv8")
        still = await paired.get_characteristics([(2, 10)])
        await paired.close()
        return answers, unknown, tlv.code, still

    answers, unknown, tlv_code, still = run(body())
    assert all(answer == (400, {"status": -70410}) for answer in answers), answers
    assert unknown["characteristics"][0]["status"] == -70409
    assert tlv_code == 400
    assert "value" in still[(2, 10)]


def test_random_requests_do_not_bring_the_server_down(demo):
    generator = random.Random(37)
    targets = ["/pair-setup", "/pair-verify", "/pairings", "/identify", "/prepare", "/characteristics?id=2.10",
               "/characteristics?id=x,1.", "/accessories", "/%ff%00"]
    statuses = set()
    for _ in range(300):
        body = bytes(generator.randrange(256) for _ in range(generator.randrange(0, 600)))
        if generator.random() < 0.5:  # TLV-shaped: a state item first
            body = bytes([6, 1, generator.choice([1, 3, 5])]) + body
        method = generator.choice(["GET", "POST", "PUT", "DELETE"])
        head = f"{method} {generator.choice(targets)} HTTP/1.1\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        with socket.create_connection(("127.0.0.1", demo.port), timeout=5) as connection:
            connection.sendall(head.encode() + body)
            answer = connection.recv(64)
            statuses.add(answer.split(b" ")[1] if answer.startswith(b"HTTP/1.1 ") else answer[:12])
    assert demo.process.poll() is None
    assert statuses <= {b"200", b"204", b"400", b"404", b"405", b"470"}, statuses

    async def body():
        paired = pairing(demo)
        value = await paired.get_characteristics([(2, 10)])
        await paired.close()
        return value

    assert "value" in run(body())[(2, 10)]


async def raw_request(connection, method: str, target: str, body: bytes, content_type: str):
    """A request with any body; aiohomekit raises on 4xx, the response rides on the exception."""
    try:
        headers = [("Content-Length", len(body)), ("Content-Type", content_type)]
        return await connection.request(method, target, headers=headers, body=body)
    except HttpErrorResponse as error:
        return error.response


def test_stored_pairing_verifies_after_restart(demo):
    demo.stop()
    demo.start()

    async def body():
        paired = pairing(demo)
        values = await paired.get_characteristics([(2, 9), (2, 10)])
        await paired.close()
        return values

    values = run(body())
    assert (2, 10) in values and "value" in values[(2, 10)]


def test_removing_the_last_admin_unpairs(demo):
    async def body():
        admin = pairing(demo)
        await admin.remove_pairing(STATE["pairing"]["iOSPairingId"])
        await admin.close()
        found = discovery(demo)
        finish = await found.async_start_pairing("fresh")
        await found.close()
        return finish

    assert run(body()) is not None


def test_idle_connections_are_closed(demo, tmp_path):
    from conftest import Demo

    idle = Demo(demo.binary, tmp_path / "idle-store.json", tmp_path / "idle.log", ["--idle-seconds", "1"])
    idle.start()
    try:
        with socket.create_connection(("127.0.0.1", idle.port), timeout=5) as connection:
            started = time.perf_counter()
            assert connection.recv(1) == b""  # the server closed it
            waited = time.perf_counter() - started
    finally:
        idle.stop()
    assert 0.9 < waited < 3


def test_print_timings():
    print()
    for name, seconds in TIMINGS.items():
        print(f"  {name:45s} {seconds * 1000:8.1f} ms")
