#!/usr/bin/env python3
"""A soak: the whole house under load for a long time, watched from outside.

A private mosquitto on a free loopback port, the simulator serving --devices generated devices that
report --rate messages per second in total, and `homegate run` over them with the shipped mappings
and a fresh database. Triggers on motion sensors switch lights through action sets, a timer fires
every minute, and a request arrives every second (reads, writes, scenes, rooms added and removed).

Each minute it prints the gateway's RSS, CPU, open file descriptors, database size, and the rate of
events, trigger fires and answered requests; at the end, the slope of RSS over the last 20 minutes
(or the last two thirds of a shorter run) by least squares over 10-second samples. Exits 1 when the
gateway died, a request went unanswered, or RSS grew by 1 MB per 10 minutes or more.

Usage: scripts/soak.py [--minutes 30] [--devices 1000] [--rate 1000] [--bin .build/release]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests"))
from pyhouse.house import House  # noqa: E402


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def slope_per_10_minutes(samples):
    """Least squares slope of (seconds, MB) samples, in MB per 10 minutes."""
    n = len(samples)
    if n < 2:
        return 0.0
    mx = sum(t for t, _ in samples) / n
    my = sum(v for _, v in samples) / n
    den = sum((t - mx) ** 2 for t, _ in samples)
    return 0.0 if den == 0 else sum((t - mx) * (v - my) for t, v in samples) / den * 600


class Counter:
    """Counts lines a mosquitto_sub prints, by a classifier of the line."""

    def __init__(self, argv, classify):
        self.counts, self.lock = {}, threading.Lock()
        self.last = {}
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.classify = classify
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            key = self.classify(line)
            with self.lock:
                self.counts[key] = self.counts.get(key, 0) + 1
                self.last[key] = line

    def get(self, key):
        with self.lock:
            return self.counts.get(key, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build/release"))
    parser.add_argument("--keep", action="store_true", help="keep the run folder (logs, database) afterwards")
    args = parser.parse_args()

    run = tempfile.mkdtemp(prefix="homegate-soak-")
    house = House(args.bin, run)  # Tests/pyhouse: processes logging to RUN/NAME.log, ended by PID
    os.makedirs(os.path.join(run, "mappings"))
    shutil.copy(os.path.join(ROOT, "mappings/zigbee2mqtt.yaml"), os.path.join(run, "mappings"))
    database = os.path.join(run, "homegate.sqlite")

    def mqtt(*extra):
        return ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), *extra]

    def publish(topic, payload):
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-q", "1", "-t", topic, "-m", payload],
                       check=True, timeout=10)

    status = 0
    try:
        port = house.start_mosquitto(conf="log_type error\nmax_queued_messages 100000\nset_tcp_nodelay true")
        house.start("simulator", [os.path.join(args.bin, "homegate-simulator"), "--url", f"mqtt://127.0.0.1:{port}",
                                  "--devices", "demo/devices.json", "--generate", str(args.devices), "--rate", str(args.rate)], cwd=ROOT)
        gateway = house.start_gateway(env={"HOMEGATE_MAPPINGS": os.path.join(run, "mappings"), "HOMEGATE_DATABASE": database,
                                           "HOMEGATE_LOG_LEVEL": "info"}, cwd=ROOT).process

        # The house as published: pick the motion sensors and lights the automations use.
        tree = subprocess.run(mqtt("-t", "homegate/accessories", "-C", "1", "-W", "60"), capture_output=True, text=True)
        deadline = time.time() + 60
        accessories = []
        while time.time() < deadline:
            accessories = json.loads(tree.stdout or "{}").get("accessories", [])
            if len(accessories) >= args.devices // 2:
                break
            tree = subprocess.run(mqtt("-t", "homegate/accessories", "-C", "1", "-W", "10", "-R"), capture_output=True, text=True)
        if len(accessories) < args.devices // 2:
            sys.exit(f"soak: the gateway published {len(accessories)} accessories, expected about {args.devices}")

        def having(characteristic):
            return [a["id"] for a in accessories if any(c["type"] == characteristic for s in a.get("services", [])
                                                        for c in s.get("characteristics", []))]

        motion, lights = having("motion_detected")[:5], [a for a in having("brightness")][:10]
        if not motion or len(lights) < 2:
            sys.exit("soak: no motion sensor or lights among the generated devices")

        responses = Counter(mqtt("-t", "homegate/response/#", "-v"),
                            lambda line: "ok" if '"status":"ok"' in line else "error")
        events = Counter(mqtt("-t", "homegate/event/#", "-F", "%t"),
                         lambda topic: "trigger" if topic.startswith("homegate/event/trigger/") else "event")
        time.sleep(1)  # both subscribed before the first request

        sent = 0

        def request(command, body):
            nonlocal sent
            sent += 1
            publish(f"homegate/request/{command}", json.dumps(dict(body, transaction=sent)))

        for i, sensor in enumerate(motion):
            request("action_set/add", {"name": f"Soak {i}", "actions": [
                {"characteristic": f"{lights[i % len(lights)]}/lightbulb/on", "value": True},
                {"characteristic": f"{lights[i % len(lights)]}/lightbulb/brightness", "value": 10 + i}]})
            request("trigger/add", {"name": f"Soak motion {i}", "action_sets": [f"Soak {i}"],
                                    "events": [{"characteristic": f"{sensor}/motion_sensor/motion_detected", "value": True}]})
        request("trigger/add", {"name": "Soak every minute", "action_sets": ["Soak 0"],
                                "timer": {"fire_date": "2026-01-01T00:00", "recurrence": {"every": 1, "unit": "minutes"}}})

        rounds = [
            lambda k: request("home/list", {}),
            lambda k: request("characteristic/write", {"writes": [
                {"characteristic": f"{lights[-1]}/lightbulb/brightness", "value": k % 100}]}),
            lambda k: request("characteristic/read", {"accessory": lights[-1], "service": "lightbulb", "characteristic": "on"}),
            lambda k: request("room/add", {"name": f"Soak room {k}"}),
            lambda k: request("room/remove", {"room": f"Soak room {k - 1}"}),
            lambda k: request("action_set/execute", {"action_set": "Soak 1" if len(motion) > 1 else "Soak 0"}),
            lambda k: request("trigger/list", {}),
            lambda k: request("accessory/rename", {"accessory": lights[-2], "name": f"Soak lamp {k}"}),
        ]

        start_time = time.time()
        end_time = start_time + args.minutes * 60 + 1  # the last minute's line included
        samples = []  # (seconds, RSS MB)
        last_minute = (start_time, cpu_seconds(gateway.pid), 0, 0, 0)
        print(f"soak: {args.devices} devices at {args.rate:g} msg/s, {len(motion)} motion triggers and a minute timer, "
              f"a request a second, {args.minutes:g} min; run folder {run}", flush=True)
        print(f"{'min':>4} {'RSS MB':>7} {'HWM MB':>7} {'CPU %':>6} {'fds':>5} {'db MB':>6} {'events/s':>9} {'fires/min':>9} "
              f"{'answers':>8} {'errors':>7}", flush=True)
        k, minute = 0, 1
        next_sample = start_time
        while time.time() < end_time:
            if gateway.poll() is not None:
                print(f"soak: the gateway exited with status {gateway.returncode}; see {run}/homegate.log")
                status = 1
                break
            rounds[k % len(rounds)](k)
            k += 1
            now = time.time()
            if now >= next_sample:
                fields = proc_status(gateway.pid)
                samples.append((now - start_time, int(fields["VmRSS"].split()[0]) / 1024))
                next_sample += 10
            if now - start_time >= minute * 60:
                fields = proc_status(gateway.pid)
                cpu = cpu_seconds(gateway.pid)
                t0, c0, e0, f0, r0 = last_minute
                e, f, r = events.get("event"), events.get("trigger"), responses.get("ok") + responses.get("error")
                db = sum(os.path.getsize(database + s) for s in ["", "-wal", "-shm"] if os.path.exists(database + s))
                print(f"{minute:>4} {int(fields['VmRSS'].split()[0]) / 1024:>7.1f} {int(fields['VmHWM'].split()[0]) / 1024:>7.1f} "
                      f"{(cpu - c0) / (now - t0) * 100:>6.1f} {len(os.listdir(f'/proc/{gateway.pid}/fd')):>5} {db / 1e6:>6.2f} "
                      f"{(e - e0) / (now - t0):>9.0f} {f - f0:>9} {r - r0:>8} {responses.get('error'):>7}", flush=True)
                last_minute = (now, cpu, e, f, r)
                minute += 1
            time.sleep(max(0, start_time + k - time.time()))

        answered = responses.get("ok") + responses.get("error")
        deadline = time.time() + 10
        while answered < sent and time.time() < deadline:
            time.sleep(0.1)
            answered = responses.get("ok") + responses.get("error")
        window = min(20 * 60, args.minutes * 60 * 2 / 3)
        tail = [(t, v) for t, v in samples if t >= samples[-1][0] - window] if samples else []
        slope = slope_per_10_minutes(tail)
        print(f"soak: {sent} requests, {answered} answered ({responses.get('error')} errors); "
              f"{events.get('event')} events, {events.get('trigger')} trigger events")
        print(f"soak: RSS slope over the last {window / 60:.0f} min: {slope:+.2f} MB per 10 min "
              f"({tail[0][1] if tail else 0:.1f} → {tail[-1][1] if tail else 0:.1f} MB)")
        if status == 0 and answered < sent:
            print(f"soak: {sent - answered} requests were not answered")
            status = 1
        if status == 0 and slope >= 1.0:
            print("soak: RSS grows by 1 MB per 10 minutes or more")
            status = 1
        if responses.get("error"):
            print(f"soak: the last error answer: {responses.last.get('error', '').strip()}")
        print("soak: " + ("passed" if status == 0 else "FAILED"))
    finally:
        for counter in [c for c in [locals().get("responses"), locals().get("events")] if c]:
            counter.process.terminate()
        house.stop_all()
        if not args.keep and status == 0:
            shutil.rmtree(run, ignore_errors=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
