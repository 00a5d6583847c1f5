#!/usr/bin/env python3
"""Builds the device corpus (devices.json, a Zigbee2MQTT bridge/devices payload) from public sources.

  --definitions FILE=SOURCE   the definitions of zigbee-herdsman-converters, dumped by
                              dump-definitions.ts (vendor, model, description and the exposes
                              Zigbee2MQTT publishes in bridge/devices); only the models listed in
                              models.txt are kept
  --payload FILE=SOURCE       a bridge/devices payload captured from a real installation and kept
                              as test data by a public project; every device in it is kept
  --titles DIR                homebridge-z2m's docs/devices folder: where it documents a device,
                              the HomeKit services it gives it go into "homebridge_z2m"

Every device names its source in "corpus_source". IEEE addresses and friendly names are made up.

Usage: make-corpus.py --definitions defs.json=URL --payload FILE=URL ... --titles DIR > devices.json
"""
import argparse, hashlib, json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def ieee_for(key):
    return "0x" + hashlib.sha256(key.encode()).hexdigest()[:16]


def device_entry(model, vendor, description, exposes, source):
    battery = any(e.get("name") == "battery" for e in exposes)
    name = re.sub(r"[/+#\x00-\x1f]", "-", "%s %s" % (vendor, model))
    return {
        "ieee_address": ieee_for(vendor + "/" + model),
        "friendly_name": name,
        "type": "EndDevice" if battery else "Router",
        "power_source": "Battery" if battery else "Mains (single phase)",
        "supported": True,
        "disabled": False,
        "interview_completed": True,
        "interview_state": "SUCCESSFUL",
        "definition": {"model": model, "vendor": vendor, "description": description, "exposes": exposes,
                       "options": [], "supports_ota": False, "source": "native"},
        "corpus_source": source,
    }


def homebridge_services(devices, folder, source):
    pages = {}
    for root, _, files in os.walk(folder):
        for f in files:
            if not f.endswith(".md") or f == "index.md": continue
            page = open(os.path.join(root, f), encoding="utf-8").read()
            link = re.search(r"zigbee2mqtt\.io/devices/([^)\s]+)\.html", page)
            if link: pages[link.group(1)] = (os.path.relpath(os.path.join(root, f), folder), page)
    for d in devices:
        model = d["definition"]["model"]
        slugs = (model, model.replace("/", "_"), model.replace(" ", "_"), model.replace("/", "_").replace(" ", "_"))
        found = next((pages[s] for s in slugs if s in pages), None)
        if not found: continue
        rel, page = found
        section = page.split("# Services and characteristics", 1)[-1].split("# Related", 1)[0]
        d["homebridge_z2m"] = {"services": re.findall(r"^\* \[([^\]]+)\]", section, re.M),
                               "source": "%s/docs/devices/%s" % (source.rstrip("/"), rel)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--definitions", required=True)
    ap.add_argument("--payload", action="append", default=[])
    ap.add_argument("--titles")
    ap.add_argument("--homebridge-source", default="https://github.com/itavero/homebridge-z2m/blob/000702614933a6d307d0208f559b35af6b397eee")
    args = ap.parse_args()
    devices, seen = [], set()
    for spec in args.payload:
        path, source = spec.split("=", 1)
        for d in json.load(open(path)):
            df = d.get("definition") or {}
            if d.get("type") == "Coordinator" or not df.get("model") or df["model"] in seen: continue
            seen.add(df["model"])
            devices.append(device_entry(df["model"], df["vendor"], df.get("description", ""), df.get("exposes", []), source))
    path, source = args.definitions.split("=", 1)
    definitions = {}
    for d in json.load(open(path)):
        definitions.setdefault(d["model"], d)
    wanted = [l.strip() for l in open(os.path.join(HERE, "models.txt"), encoding="utf-8") if l.strip() and not l.startswith("#")]
    for model in wanted:
        if model in seen: continue
        d = definitions.get(model)
        if d is None:
            print("models.txt: %s is not among the definitions" % model, file=sys.stderr)
            continue
        seen.add(model)
        devices.append(device_entry(model, d["vendor"], d.get("description", ""), d["exposes"], source))
    if args.titles: homebridge_services(devices, args.titles, args.homebridge_source)
    # One device per line: the file stays small enough to read and to diff.
    sys.stdout.write("[\n" + ",\n".join(json.dumps(d, ensure_ascii=False, separators=(",", ":")) for d in devices) + "\n]\n")
    print("%d devices" % len(devices), file=sys.stderr)


if __name__ == "__main__":
    main()
