#!/usr/bin/env python3
"""Writes the seed corpora in Fuzz/Corpus/<target>/ from the repository's own payloads: the JSON
tests, the Zigbee2MQTT fixtures, the shipped mappings, the request examples in the docs. Run it
again after those change; files are named by content, so a rerun adds what is new."""
import glob, hashlib, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests/MappingsTests/Fixtures")
# The order of FuzzTarget.requestCommands: an input's first byte picks the command.
COMMANDS = re.findall(r'"([a-z_]+/?[a-z_]*)"', re.search(
    r"requestCommands = \[(.*?)\]", open(os.path.join(ROOT, "Sources/FuzzTargets/FuzzTarget+Request.swift")).read(), re.S).group(1))


def write(target, name, data):
    folder = os.path.join(ROOT, "Fuzz/Corpus", target)
    os.makedirs(folder, exist_ok=True)
    data = data.encode() if isinstance(data, str) else data
    digest = hashlib.sha1(data).hexdigest()[:10]
    with open(os.path.join(folder, f"{name}-{digest}"), "wb") as f:
        f.write(data)


def fixture(name):
    return json.load(open(os.path.join(FIXTURES, name + ".json")))


def swift_raw_strings(path):
    """The #"..."# literals of a Swift test file."""
    return [s.encode().decode("unicode_escape") if False else s for s in re.findall(r'#"(.*?)"#', open(path).read())]


def json_seeds():
    texts = []
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests/JSONTests/*.swift"))):
        texts += swift_raw_strings(path)
    texts += ["[1,]", "{a:1}", "-01", "1e+", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
              "-0", "-0.0", "1e308", "5e-324", "0.1", "123456789012345678901234567890", '"\\ud83d\\ude00"',
              '"\\u0000\\u001f\\t"', '{"a":1,"a":2}', "[" * 64 + "]" * 64, "[" * 65 + "]" * 65, " \t\r\n[ ] "]
    seen = set()
    for i, text in enumerate(texts):
        if text not in seen:
            seen.add(text)
            write("json", f"test{i:02}", text)
    for name in ["bridge-info", "bridge-state", "availability", "bridge-event"]:
        write("json", name, open(os.path.join(FIXTURES, name + ".json"), "rb").read())


def state_seeds():
    for path in sorted(glob.glob(os.path.join(FIXTURES, "state-*.json"))):
        model = os.path.basename(path)[6:-5]
        data = json.load(open(path))
        messages = data if isinstance(data, list) else data.get("messages", [])
        payloads = [m["payload"] for m in messages if isinstance(m, dict) and "payload" in m]
        for i, payload in enumerate(payloads[:3]):
            write("z2m-state", f"{model}-{i}", json.dumps(payload, separators=(",", ":")))
    for text in ['{"color_mode":"xy","color":{"x":0.7,"y":0.3}}', '{"color":{"hue":400,"saturation":-5}}',
                 '{"color":{"x":0,"y":0}}', '{"brightness":1e300,"color_temp":-1}', '{"state":null}', "[]"]:
        write("z2m-state", "edge", text)


def devices_seeds():
    devices = fixture("devices")
    write("z2m-devices", "devices", json.dumps(devices, separators=(",", ":")))
    for device in devices:
        write("z2m-devices", "one-" + re.sub(r"[^a-z0-9]+", "_", device.get("friendly_name", "x").lower()),
              json.dumps([device], separators=(",", ":")))
    write("z2m-devices", "empty", "[]")


def groups_seeds():
    groups = fixture("bridge-groups")["payload"]
    write("z2m-groups", "groups", json.dumps(groups, separators=(",", ":")))
    devices = fixture("devices")
    ieee = [d["ieee_address"] for d in devices if d.get("type") != "Coordinator"]
    write("z2m-groups", "fixture-lights", json.dumps([{"id": 1, "friendly_name": "lights", "scenes": [],
          "members": [{"ieee_address": a, "endpoint": 1} for a in ieee[:3]]}], separators=(",", ":")))
    write("z2m-groups", "all", json.dumps([{"id": 2, "friendly_name": "all", "scenes": [],
          "members": [{"ieee_address": a, "endpoint": 1} for a in ieee]}], separators=(",", ":")))
    write("z2m-groups", "empty", "[]")


def topic_seeds():
    # What follows `zigbee2mqtt/`: reports, our own requests coming back, a bridge's own topics.
    for i, topic in enumerate(["bulb", "hall/bulb", "bulb/set", "bulb/set/brightness", "hall/bulb/get", "bulb/l2/set",
                               "bulb/availability", "hall/settings", "set/bulb", "bridge/devices", "bridge/state",
                               "bridge/request/device/rename", "a//set", "", "/", "bulb/"]):
        write("topic", f"topic{i:02}", topic)


def mapping_seeds():
    for path in sorted(glob.glob(os.path.join(ROOT, "mappings/*.yaml")) + glob.glob(os.path.join(ROOT, "demo/mappings/*.yaml"))):
        write("mapping-file", os.path.basename(path)[:-5], open(path, "rb").read())
    tests = ""
    for path in sorted(glob.glob(os.path.join(ROOT, "Tests/MappingsTests/MappingFile*.swift"))):
        tests += open(path).read()
    for i, block in enumerate(re.findall(r'"""\n(.*?)\n\s*"""', tests, re.S)[:24]):
        lines = block.split("\n")
        indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
        text = "\n".join(l[indent:] for l in lines) + "\n"
        if "\\(" not in text:  # interpolated test text is not a file
            write("mapping-file", f"test{i:02}", text)
    # Nested aliases (issue 12 item 3): refused by the limit before they expand.
    laughs = "source: mqtt\nvars:\n  a0: &a0 [x, x, x]\n" + "".join(
        f"  a{n}: &a{n} [*a{n-1}, *a{n-1}, *a{n-1}]\n" for n in range(1, 9))
    write("mapping-file", "aliases", laughs)


def request_seeds():
    examples = []
    for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs/*.md"))):
        examples += re.findall(r"homegate/request/([a-z_/]+) (\{.*\})", open(path).read())
    examples.append(("characteristic/write", '{"transaction":"t-1","writes":[{"accessory":"bulb","service":"lightbulb",'
                     '"characteristic":"on","value":true},{"characteristic":"bulb/lightbulb/brightness","value":100}]}'))
    examples.append(("action_set/remove", '{"action_set":"hallway_on"}'))
    examples.append(("trigger/enable", '{"trigger":"motion","enabled":false}'))
    per_command = {}
    for command, body in examples:
        if command in COMMANDS and per_command.get(command, 0) < 2:
            per_command[command] = per_command.get(command, 0) + 1
            write("request", command.replace("/", "-"), bytes([COMMANDS.index(command)]) + body.encode())
    for command in COMMANDS:
        if command not in per_command:
            write("request", command.replace("/", "-"), bytes([COMMANDS.index(command)]) + b"{}")


def import_seeds():
    home = """homegate_export: 1
primary_home: home
homes:
- id: home
  name: Home
  default_room: default_room
  rooms:
  - {id: default_room, name: Default Room}
  - {id: attic, name: Attic}
  zones:
  - {id: upstairs, name: Upstairs, rooms: [attic]}
accessories:
  bulb: {room: attic, name: Reading Lamp, pinned: true}
  curtain: {room: default_room, requested_room: Living Room}
action_sets:
- {id: hallway_on, name: Hallway On, home: home, actions: [{characteristic: bulb/lightbulb/on, value: true}, {characteristic: bulb/lightbulb/brightness, value: 80}]}
"""
    write("import", "home", home + "triggers: []\n")
    triggers = []
    for path in sorted(glob.glob(os.path.join(ROOT, "docs/*.md"))):
        for body in re.findall(r"homegate/request/trigger/add (\{.*\})", open(path).read()):
            trigger = json.loads(body)
            trigger.pop("transaction", None)
            trigger.update(id=re.sub(r"[^a-z0-9]+", "_", trigger["name"].lower()), home="home", enabled=True)
            trigger["action_sets"] = ["hallway_on"]
            triggers.append(trigger)
    for i, trigger in enumerate(triggers):
        write("import", f"trigger{i:02}", home + "triggers:\n- " + json.dumps(trigger) + "\n")
    write("import", "all-triggers", home + "triggers:\n" + "".join(f"- {json.dumps(t)}\n" for t in triggers))
    write("import", "minimal", "homes:\n- {id: home, name: Home, default_room: r, rooms: [{id: r, name: R}]}\n")
    write("import", "newer", "homegate_export: 2\nhomes: []\n")
    write("import", "aliases", "homes: &a [*a]\n")
    write("import", "empty", "")


# Certificates the Matter SDK's controller issued to matter-demo (root, ICAC, NOC; public, test only).
MATTER_CERTIFICATES = {
    "root": "1530010101240201370324140118260480228127260580254d3a3706241401182407012408013009410467d20fcfacd5289696b8595a969cd08e533896fe8346765a69889be5dd1167e72089c567e7f0285e122b4a6708a017da37b3a6d79ed18b52f275b959e2ec6c6f370a350129011824026030041424fd3ecad9c80b17afa43f68b8734a5639079bff30051424fd3ecad9c80b17afa43f68b8734a5639079bff18300b4068b36d4b295eb99f72bc602ccb993df7469ae594e134b9240e365b5e57572d42dc267bab7585a261267694df3ff9385161ce636c366f6fd43a0fdc73476d0bd718",
    "icac": "1530010101240201370324140118260480228127260580254d3a37062413021824070124080130094104bce05fa9e95b5d1bfce6680071d4e0522780d4459494c4a35b28002819ef0960d1a767becfa3a4fc8991eecfe08a585e614ed9d091e4453d2688da152445951c370a35012901182402603004145ab28f9743063353a86e12423f538df405bebf7830051424fd3ecad9c80b17afa43f68b8734a5639079bff18300b406b42023c743e284760bdeef7c2d998e29d844c4fb4dc5c74aa1d750163fee1c871ce978aba050c4dbd6a91268e7a70e0c360c934e2005ed4e4118be0bd5d2bbd18",
    "noc": "1530010101240201370324130218260480228127260580254d3a3706241501251107301824070124080130094104a6d5da863d72f7e1e993336152bf106ad86de3bdd3a0aa94350ddfa55632f4bd1ba568887dd811dafac7bee0d96b0b2bb400d787fde0249918d4fce3fee213d1370a350128011824020136030402040118300414e786fce7b0f19927fdb66a7374f53d9310d010493005145ab28f9743063353a86e12423f538df405bebf7818300b40e252a2ffb9bec2e67287832388458023031c83902fd4bf7e81d1174affb2e37e03c5ea2d944abe1d93cc2ff7b1b1faccabebe9e63d5b0ff5805943a626676eec18",
}


def tlv(value, tag=None):
    """Matter TLV for the seeds: dicts are structures (int keys: context tags), lists of pairs are lists, lists arrays."""
    def head(kind):
        if tag is None:
            return bytes([kind])
        return bytes([0x20 | kind, tag]) if tag < 256 else bytes([0x20 | kind, 0xFF])
    if isinstance(value, bool):
        return head(0x09 if value else 0x08)
    if isinstance(value, int) and value < 0:
        for width, kind in ((1, 0x00), (2, 0x01), (4, 0x02), (8, 0x03)):
            if value >= -(1 << (8 * width - 1)):
                return head(kind) + value.to_bytes(width, "little", signed=True)
    if isinstance(value, int):
        for width, kind in ((1, 0x04), (2, 0x05), (4, 0x06), (8, 0x07)):
            if value < 1 << (8 * width):
                return head(kind) + value.to_bytes(width, "little")
    if isinstance(value, str):
        return head(0x0C) + bytes([len(value.encode())]) + value.encode()
    if isinstance(value, bytes):
        return head(0x10) + bytes([len(value)]) + value if len(value) < 256 else head(0x11) + len(value).to_bytes(2, "little") + value
    if value is None:
        return head(0x14)
    if isinstance(value, dict):
        return head(0x15) + b"".join(tlv(v, k) for k, v in value.items()) + b"\x18"
    if isinstance(value, tuple):  # a list (AttributePathIB, CommandPathIB)
        return head(0x17) + b"".join(tlv(v, k) for k, v in value) + b"\x18"
    return head(0x16) + b"".join(tlv(v) for v in value) + b"\x18"


def matter_seeds():
    for name, text in MATTER_CERTIFICATES.items():
        write("matter-certificate", name, bytes.fromhex(text))
        write("matter-tlv", "certificate-" + name, bytes.fromhex(text))
    read = {0: [((2, 0), (3, 0x28), (4, 5))], 3: True, 0xFF: 12}
    requests = {
        "read": (0x02, read),
        "read-wildcard": (0x02, {0: [()], 3: False}),
        "invoke-toggle": (0x08, {0: False, 1: False, 2: [{0: ((0, 1), (1, 6), (2, 2)), 1: {}}]}),
        "invoke-arm-fail-safe": (0x08, {0: False, 1: False, 2: [{0: ((0, 0), (1, 0x30), (2, 0)), 1: {0: 60, 1: 1}}]}),
        "invoke-attestation": (0x08, {0: False, 1: False, 2: [{0: ((0, 0), (1, 0x3E), (2, 0)), 1: {0: bytes(32)}}]}),
        "invoke-add-noc": (0x08, {0: False, 1: False, 2: [{0: ((0, 0), (1, 0x3E), (2, 6)), 1: {
            0: bytes.fromhex(MATTER_CERTIFICATES["noc"]), 1: bytes.fromhex(MATTER_CERTIFICATES["icac"]), 2: bytes(16), 3: 112233, 4: 0xFFF1}}]}),
        "write-node-label": (0x06, {0: False, 1: False, 2: [{1: ((2, 0), (3, 0x28), (4, 5)), 2: "kitchen"}]}),
        "write-acl": (0x06, {2: [{1: ((2, 0), (3, 0x1F), (4, 0)), 2: [{1: 5, 2: 2, 3: [112233], 4: None, 0xFE: 1}]}]}),
        "subscribe": (0x03, {0: False, 1: 0, 2: 30, 3: [()], 7: True}),
        "timed": (0x0A, {0: 500}),
        "status": (0x01, {0: 0}),
    }
    for name, (opcode, message) in requests.items():
        payload = tlv(message)
        write("matter-interaction", name, bytes([opcode]) + payload)
        write("matter-tlv", name, payload)
    write("matter-tlv", "scalars", tlv({1: -5 & 0xFF, 2: "été", 3: b"\x00\x01", 4: None, 5: True, 6: [1, 2, 3]}))
    # Datagrams: an unsecured PBKDFParamRequest, a Sigma1 shape, a secure session's header with junk.
    pbkdf = {1: bytes(32), 2: 0x1234, 3: 0, 4: False}
    unsecured = bytes.fromhex("04000000" "01000000" "0900000000000000")
    write("matter-message", "pbkdf-param-request", unsecured + bytes.fromhex("05200100" "0000") + tlv(pbkdf))
    sigma1 = {1: bytes(32), 2: 0x4321, 3: bytes(32), 4: bytes([4]) + bytes(64)}
    write("matter-message", "sigma1", unsecured + bytes.fromhex("05300200" "0000") + tlv(sigma1))
    write("matter-message", "secure-junk", bytes.fromhex("00341200" "05000000") + bytes(40))


# The bridge's device types (Matter Device Library) and (device type, which of that type) in its sample house.
BRIDGE_DEVICES = {
    "color-light": (0x010D, 0), "temperature-light": (0x010C, 0), "dimmable-light": (0x0101, 0), "plug": (0x010A, 0),
    "cover": (0x0202, 0), "heating": (0x0301, 0), "cooling": (0x0301, 1), "lock": (0x000A, 0), "fan": (0x002B, 0),
    "purifier": (0x002B, 1), "button": (0x000F, 0), "contact": (0x0015, 0),
}
ON_OFF, LEVEL, COLOR, IDENTIFY, COVERING, THERMOSTAT, DOOR_LOCK, FAN = 0x0006, 0x0008, 0x0300, 0x0003, 0x0102, 0x0201, 0x0101, 0x0202


def bridge_seed(device, name, cluster, command, fields=None, write_value=None, flags=0):
    """A matter-bridge input: [device type, flags, cluster, command or attribute] and the fields' (or the value's) TLV."""
    device_type, index = BRIDGE_DEVICES[device]
    flags |= index << 5 | (1 if write_value is not None else 0)
    head = device_type.to_bytes(2, "little") + bytes([flags]) + cluster.to_bytes(2, "little") + command.to_bytes(2, "little")
    body = tlv(write_value) if write_value is not None else tlv(fields if fields is not None else {})
    write("matter-bridge", f"{device}-{name}", head + body)


def matter_bridge_seeds():
    """One valid invoke per command the bridge accepts, one valid write per attribute it takes."""
    for light in ("color-light", "temperature-light", "dimmable-light"):
        for command, name in ((0, "off"), (1, "on"), (2, "toggle")):
            bridge_seed(light, name, ON_OFF, command)
        bridge_seed(light, "move-to-level", LEVEL, 0, {0: 127, 1: None, 2: 0, 3: 0})
        bridge_seed(light, "move", LEVEL, 1, {0: 0, 1: 50, 2: 0, 3: 0})
        bridge_seed(light, "step", LEVEL, 2, {0: 1, 1: 20, 2: None, 3: 0, 4: 0})
        bridge_seed(light, "stop", LEVEL, 3, {0: 0, 1: 0})
        bridge_seed(light, "move-to-level-with-on-off", LEVEL, 4, {0: 1, 1: 0, 2: 0, 3: 0})
        bridge_seed(light, "move-with-on-off", LEVEL, 5, {0: 1, 1: None, 2: 0, 3: 0})
        bridge_seed(light, "step-with-on-off", LEVEL, 6, {0: 0, 1: 254, 2: 0, 3: 0, 4: 0})
        bridge_seed(light, "stop-with-on-off", LEVEL, 7, {0: 0, 1: 0})
        bridge_seed(light, "move-off", LEVEL, 1, {0: 1, 1: 10, 2: 1, 3: 1}, flags=1 << 2)  # at the minimum: the light off
        bridge_seed(light, "identify", IDENTIFY, 0, {0: 5})
        bridge_seed(light, "trigger-effect", IDENTIFY, 0x40, {0: 1, 1: 0})
        bridge_seed(light, "identify-time", IDENTIFY, 0, write_value=10)
    color = {
        "move-to-hue": (0x00, {0: 120, 1: 0, 2: 0, 3: 0, 4: 0}), "move-hue": (0x01, {0: 1, 1: 40, 2: 0, 3: 0}),
        "step-hue": (0x02, {0: 3, 1: 20, 2: 0, 3: 0, 4: 0}), "move-to-saturation": (0x03, {0: 200, 1: 0, 2: 0, 3: 0}),
        "move-saturation": (0x04, {0: 3, 1: 30, 2: 0, 3: 0}), "step-saturation": (0x05, {0: 1, 1: 25, 2: 0, 3: 0, 4: 0}),
        "move-to-hue-and-saturation": (0x06, {0: 60, 1: 254, 2: 0, 3: 0, 4: 0}),
        "move-to-color": (0x07, {0: 0x5000, 1: 0x6000, 2: 0, 3: 0, 4: 0}), "move-color": (0x08, {0: 1000, 1: -1000, 2: 0, 3: 0}),
        "step-color": (0x09, {0: -2000, 1: 3000, 2: 0, 3: 0, 4: 0}),
    }
    for name, (command, fields) in color.items():
        bridge_seed("color-light", name, COLOR, command, fields)
    for light in ("color-light", "temperature-light"):
        bridge_seed(light, "move-to-color-temperature", COLOR, 0x0A, {0: 300, 1: 0, 2: 0, 3: 0})
        bridge_seed(light, "stop-move-step", COLOR, 0x47, {0: 0, 1: 0})
        bridge_seed(light, "move-color-temperature", COLOR, 0x4B, {0: 1, 1: 50, 2: 0, 3: 0, 4: 0, 5: 0})
        bridge_seed(light, "step-color-temperature", COLOR, 0x4C, {0: 3, 1: 40, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0})
    bridge_seed("plug", "on", ON_OFF, 1)
    bridge_seed("plug", "toggle", ON_OFF, 2)
    for command, name in ((0, "up"), (1, "down"), (2, "stop")):
        bridge_seed("cover", name, COVERING, command)
    bridge_seed("cover", "go-to-lift", COVERING, 5, {0: 2500})
    bridge_seed("cover", "go-to-tilt", COVERING, 8, {0: 7500})
    bridge_seed("heating", "raise", THERMOSTAT, 0, {0: 0, 1: 10})
    bridge_seed("heating", "heating-setpoint", THERMOSTAT, 0x0012, write_value=2150)
    bridge_seed("heating", "system-mode", THERMOSTAT, 0x001C, write_value=4)
    bridge_seed("cooling", "lower-both", THERMOSTAT, 0, {0: 2, 1: -15})
    bridge_seed("cooling", "cooling-setpoint", THERMOSTAT, 0x0011, write_value=2400)
    bridge_seed("cooling", "heating-setpoint", THERMOSTAT, 0x0012, write_value=1900)
    bridge_seed("cooling", "system-mode", THERMOSTAT, 0x001C, write_value=3)
    bridge_seed("lock", "lock", DOOR_LOCK, 0, {}, flags=2)
    bridge_seed("lock", "unlock", DOOR_LOCK, 1, {0: b"1234"}, flags=2)
    bridge_seed("lock", "operating-mode", DOOR_LOCK, 0x0025, write_value=0)
    for fan in ("fan", "purifier"):
        bridge_seed(fan, "step-up", FAN, 0, {0: 0, 1: False, 2: True})
        bridge_seed(fan, "step-down-wrap", FAN, 0, {0: 1, 1: True, 2: False})
        bridge_seed(fan, "fan-mode", FAN, 0x0000, write_value=2)
        bridge_seed(fan, "percent", FAN, 0x0002, write_value=40)
        bridge_seed(fan, "refused-airflow", FAN, 0x000B, write_value=1)  # no Zigbee2MQTT fan has a direction
    bridge_seed("purifier", "auto", FAN, 0x0000, write_value=5)
    bridge_seed("button", "identify", IDENTIFY, 0, {0: 3})
    bridge_seed("contact", "refused-toggle", ON_OFF, 2)  # a cluster the device lacks


if __name__ == "__main__":
    json_seeds(); state_seeds(); devices_seeds(); groups_seeds(); topic_seeds(); mapping_seeds(); request_seeds(); import_seeds(); matter_seeds()
    matter_bridge_seeds()
    for target in sorted(os.listdir(os.path.join(ROOT, "Fuzz/Corpus"))):
        print(target, len(os.listdir(os.path.join(ROOT, "Fuzz/Corpus", target))), file=sys.stderr)
