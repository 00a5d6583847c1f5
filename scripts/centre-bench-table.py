#!/usr/bin/env python3
"""The table of scripts/centre-bench.sh: reads the logs in OUT and prints figure | before | after |
after/before, each cell the median over the rounds (the range after it when there are several).

    python3 scripts/centre-bench-table.py OUT ROUNDS
"""

import re
import statistics
import sys
from pathlib import Path

out, rounds = Path(sys.argv[1]), int(sys.argv[2])
BUILDS = ("before", "after")


def number(text):
    match = re.search(r"-?[\d.]+", text.replace(",", ""))
    return float(match.group()) if match else None


def table_row(lines, prefix):
    """The cells of the first Markdown table row whose first cell starts with prefix."""
    for line in lines:
        if line.startswith("| " + prefix):
            return [cell.strip() for cell in line.strip().strip("|").split("|")]
    return None


def tail(lines):
    figures = {}
    sections = {"idle": None, "2000": None}
    for i, line in enumerate(lines):
        if line.startswith("### idle"):
            sections["idle"] = i
        elif line.startswith("### 2000/s"):
            sections["2000"] = i
    for key, start in sections.items():
        if start is None:
            continue
        end = next((j for j in range(start + 1, len(lines)) if lines[j].startswith("### ")), len(lines))
        block = lines[start:end]
        floor, gateway = table_row(block, "floor:"), table_row(block, "homegate:")
        if not floor or not gateway:
            continue
        for column, label in ((2, "p50"), (4, "p99")):
            f, g = number(floor[column]), number(gateway[column])
            figures[f"tail {key} {label}"] = g
            figures[f"tail {key} floor {label}"] = f
            figures[f"tail {key} {label} ratio"] = g / f if f else None
        cpu = next((l for l in block if l.startswith("homegate CPU")), None)
        if cpu:
            figures[f"tail {key} cpu"] = number(cpu.split("CPU", 1)[1])
    return figures


def rss(lines):
    for line in lines:
        match = re.search(r"homegate RSS after the latency runs ([\d.]+) MB .*peak since start ([\d.]+) MB", line)
        if match:
            return {"rss": float(match.group(1)), "rss peak": float(match.group(2))}
    return {}


def stream(lines):
    alone = table_row(lines, "gateway, no WebSocket client")
    clients = table_row(lines, "gateway, 200 WebSocket clients")
    fanout = table_row(lines, "no-work fan-out, 200")
    if not (alone and clients and fanout):
        return {}
    added = number(clients[7]) - number(alone[7])
    return {
        "ws cpu added": added,
        "ws fanout cpu": number(fanout[7]),
        "ws ratio": added / number(fanout[7]),
        "ws p50 over mqtt": number(clients[3]) - number(clients[1]),
        "ws delivered": clients[6].split(" (")[0],
    }


HAP_ROWS = {
    "hap write p50": "write → /set, HAP PUT p50",
    "hap write p99": "write → /set, HAP PUT p99",
    "hap write ratio": "HAP p50 / echo p50",
    "mqtt write ratio": "MQTT p50 / echo p50",
    "write echo p50": "write, broker-only echo p50",
    "hap isolated p50": "isolated change → HAP EVENT p50",
    "hap isolated p99": "isolated change → HAP EVENT p99",
    "hap isolated ratio": "isolated HAP EVENT p50 / event echo p50",
    "mqtt isolated ratio": "isolated MQTT event p50 / event echo p50",
    "hap isolated over mqtt p99": "isolated HAP EVENT p99 − MQTT event p99",
    "hap event p50": "device → HAP EVENT p50",
    "hap event p99": "device → HAP EVENT p99",
    "hap cpu": "homegate CPU, no controller",
}


def hap(lines):
    figures = {}
    for key, prefix in HAP_ROWS.items():
        row = table_row(lines, prefix)
        if row:
            figures[key] = number(row[1])
    return figures


PARSERS = {"tail": tail, "rss": rss, "stream": stream, "hap": hap}


def load(lines):
    for line in lines[:3]:
        match = re.match(r"# load average ([\d.]+)", line)
        if match:
            return float(match.group(1))
    return None


results = {build: {} for build in BUILDS}  # build → figure → [values over rounds]
loads = {build: [] for build in BUILDS}
marked = {build: set() for build in BUILDS}
for name, parse in PARSERS.items():
    for build in BUILDS:
        for round in range(1, rounds + 1):
            log = out / f"{name}-{build}-{round}.log"
            if not log.exists():
                continue
            lines = log.read_text(errors="replace").splitlines()
            if (value := load(lines)) is not None:
                loads[build].append(value)
            figures = parse(lines)
            if (out / f"{name}-{build}-{round}.own-tools").exists():
                marked[build].update(figures)
            for key, value in figures.items():
                results[build].setdefault(key, []).append(value)


def instructions(build):
    """Instructions per reading: the longer callgrind run less the shorter, over the readings between."""
    totals = {}
    for path in out.glob(f"callgrind-{build}-*.out"):
        seconds = int(path.stem.rsplit("-", 1)[1])
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                totals[seconds] = int(line.split()[1])
    if len(totals) < 2:
        return None
    short, long = min(totals), max(totals)
    return (totals[long] - totals[short]) / (50 * (long - short))  # homegate-bench gateway --rate 50


for build in BUILDS:
    if (value := instructions(build)) is not None:
        results[build]["instructions"] = [value]


def cell(build, key, digits):
    values = [v for v in results[build].get(key, []) if v is not None]
    if not values:
        return "–", None
    if isinstance(values[0], str):
        return "; ".join(values), None
    median = statistics.median(values)
    text = f"{median:.{digits}f}"
    if len(values) > 1:
        text += f" ({min(values):.{digits}f}–{max(values):.{digits}f})"
    if key in marked[build]:
        text += " †"
    return text, median


ROWS = [
    ("**tail idle: p50 / echo floor p50**", "tail idle p50 ratio", 2),
    ("**tail idle: p99 / echo floor p99**", "tail idle p99 ratio", 2),
    ("tail idle: motion → /set p50, ms", "tail idle p50", 3),
    ("tail idle: echo floor p50, ms", "tail idle floor p50", 3),
    ("tail idle: motion → /set p99, ms", "tail idle p99", 3),
    ("tail idle: echo floor p99, ms", "tail idle floor p99", 3),
    ("**tail 2,000 readings/s: p50 / echo floor p50**", "tail 2000 p50 ratio", 2),
    ("**tail 2,000 readings/s: p99 / echo floor p99**", "tail 2000 p99 ratio", 2),
    ("tail 2,000/s: motion → /set p50, ms", "tail 2000 p50", 3),
    ("tail 2,000/s: echo floor p50, ms", "tail 2000 floor p50", 3),
    ("tail 2,000/s: motion → /set p99, ms", "tail 2000 p99", 3),
    ("tail 2,000/s: echo floor p99, ms", "tail 2000 floor p99", 3),
    ("tail 2,000/s: homegate CPU, % of a core", "tail 2000 cpu", 1),
    ("**instructions per reading (callgrind, 50/s), k**", "instructions", 1),
    ("**HAP write → /set: p50 / broker-only echo p50**", "hap write ratio", 2),
    ("HAP write → /set p50, ms", "hap write p50", 2),
    ("HAP write → /set p99, ms", "hap write p99", 2),
    ("write, broker-only echo p50, ms", "write echo p50", 2),
    ("MQTT homegate/set → /set: p50 / echo p50 (for scale)", "mqtt write ratio", 2),
    ("**isolated device change → HAP EVENT: p50 / event echo p50**", "hap isolated ratio", 2),
    ("isolated device change → HAP EVENT p50, ms", "hap isolated p50", 2),
    ("isolated device change → HAP EVENT p99, ms", "hap isolated p99", 2),
    ("isolated HAP EVENT p99 − MQTT event p99, ms", "hap isolated over mqtt p99", 2),
    ("isolated MQTT event: p50 / event echo p50 (for scale)", "mqtt isolated ratio", 2),
    ("device change → HAP EVENT at 2,000 msg/s p50, ms (gathering window)", "hap event p50", 0),
    ("device change → HAP EVENT at 2,000 msg/s p99, ms", "hap event p99", 0),
    ("homegate CPU, HAP bench, no controller, % of a core", "hap cpu", 1),
    ("**WebSocket, 200 clients: CPU added / no-work fan-out's CPU**", "ws ratio", 2),
    ("WebSocket, 200 clients: CPU added, % of a core", "ws cpu added", 1),
    ("no-work fan-out, 200 clients: CPU, % of a core", "ws fanout cpu", 1),
    ("WebSocket p50 over the MQTT event's, ms", "ws p50 over mqtt", 3),
    ("WebSocket events delivered", "ws delivered", 0),
    ("**RSS with 1,000 devices, after the run, MB**", "rss", 1),
    ("RSS with 1,000 devices, peak since start, MB", "rss peak", 1),
]

print("| figure | before | after | after/before |")
print("| --- | --- | --- | --- |")
for label, key, digits in ROWS:
    (b_text, b), (a_text, a) = cell("before", key, digits), cell("after", key, digits)
    if key == "instructions":
        b_text = "–" if b is None else f"{b / 1000:.1f}"
        a_text = "–" if a is None else f"{a / 1000:.1f}"
    ratio = f"{a / b:.2f}" if a is not None and b is not None and a > 0 and b > 0 else "–"  # no ratio of differences
    print(f"| {label} | {b_text} | {a_text} | {ratio} |")
print()
for build in BUILDS:
    if loads[build]:
        print(f"{build}: load average (1 min) at the runs' starts {min(loads[build]):.1f}–{max(loads[build]):.1f}")
print(f"Cells: median over {rounds} rounds (range); bold: ratios to a no-work reference measured in the same run, "
      "which compare on a loaded machine; instructions: one run pair per build.")
if any(marked.values()):
    print("†: before measured with its own homegate-bench, simulator and echo (after's failed; see the .failed.log)")
