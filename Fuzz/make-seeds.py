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


if __name__ == "__main__":
    json_seeds(); state_seeds(); devices_seeds(); groups_seeds(); topic_seeds(); mapping_seeds(); request_seeds(); import_seeds()
    for target in sorted(os.listdir(os.path.join(ROOT, "Fuzz/Corpus"))):
        print(target, len(os.listdir(os.path.join(ROOT, "Fuzz/Corpus", target))), file=sys.stderr)
