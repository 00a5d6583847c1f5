"""The figures of docs/matter.md, over 200 rounds each: MATTER_FIGURES=1 scripts/matter-test.sh -k figures
(skipped otherwise, to keep the test command short)."""

import asyncio
import os
import signal
import time

import pytest

from test_network import commission, network_demo  # noqa: F401 (the fixture)

ROUNDS = 200


def percentiles(samples):
    samples = sorted(samples)
    return f"p50 {samples[len(samples) // 2]:.1f} ms, p99 {samples[int(len(samples) * 0.99) - 1]:.1f} ms, max {samples[-1]:.1f} ms"


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


@pytest.mark.skipif(os.environ.get("MATTER_FIGURES") != "1", reason="figures only on demand: MATTER_FIGURES=1")
def test_figures(network_demo, fabric_admin, loop):  # noqa: F811
    import chip.clusters as Clusters
    on_off = Clusters.OnOff
    print(f"\nmatter-demo RSS before commissioning: {rss_mb(network_demo.process.pid):.1f} MB")
    started = time.monotonic()
    controller = commission(fabric_admin, loop, network_demo, 0x5001)
    print(f"commissioning: {1000 * (time.monotonic() - started):.0f} ms")
    try:
        reads, invokes, reports = [], [], []
        for _ in range(ROUNDS):
            started = time.monotonic()
            loop.run_until_complete(controller.ReadAttribute(0x5001, [(2, on_off.Attributes.OnOff)]))
            reads.append(1000 * (time.monotonic() - started))
            started = time.monotonic()
            loop.run_until_complete(controller.SendCommand(0x5001, 3, on_off.Commands.Toggle()))
            invokes.append(1000 * (time.monotonic() - started))
        subscription = loop.run_until_complete(controller.ReadAttribute(0x5001, ["*"], reportInterval=(0, 30)))
        light = subscription.GetAttributes()[2][on_off][on_off.Attributes.OnOff]
        for _ in range(ROUNDS):
            reported = asyncio.Event()
            light = not light

            def changed(path, transaction, expected=light, reported=reported):
                if path.Path.EndpointId == 2 and path.AttributeType == on_off.Attributes.OnOff \
                        and transaction.GetAttributes()[2][on_off][on_off.Attributes.OnOff] is expected:
                    loop.call_soon_threadsafe(reported.set)

            subscription.SetAttributeUpdateCallback(changed)
            started = time.monotonic()
            network_demo.process.send_signal(signal.SIGUSR1)
            loop.run_until_complete(asyncio.wait_for(reported.wait(), 5))
            reports.append(1000 * (time.monotonic() - started))
        print(f"read of one attribute over CASE, {ROUNDS} rounds: {percentiles(reads)}")
        print(f"invoke (Toggle) over CASE, {ROUNDS} rounds: {percentiles(invokes)}")
        print(f"report after a change (SIGUSR1) on a wildcard subscription, {ROUNDS} rounds: {percentiles(reports)}")
        print(f"matter-demo RSS after: {rss_mb(network_demo.process.pid):.1f} MB")
        subscription.Shutdown()
    finally:
        controller.Shutdown()
