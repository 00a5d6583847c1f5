import Foundation
import Histogram

/// The tail benchmark's tables and verdicts.
enum TailReport {
    static func run(_ run: TailRun, seconds: Double, gap: Int, stallMs: Double) {
        let name = run.background == 0 ? "idle" : "\(run.background)/s background (sent at \(Int(run.backgroundRate))/s)"
        say("### \(name), \(format(seconds, 0)) s, a probe every \(gap) ms on each path")
        say("")
        say("| path | samples (lost) | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | samples ≥ \(format(stallMs, 0)) ms |")
        say("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for (path, figures) in [
            ("floor: echo client (publish → echo → subscriber)", run.floor),
            ("homegate: sensor → trigger → action set → /set", run.gateway),
        ] {
            say(
                "| \(path) | \(figures.histogram.totalCount) (\(figures.lost)) | \(format(figures.ms(50), 3)) | \(format(figures.ms(90), 3)) | "
                    + "\(format(figures.ms(99), 3)) | \(format(figures.ms(99.9), 3)) | \(format(figures.maxMs, 3)) | \(figures.stalls.count) |"
            )
        }
        say("")
        let ratios = [50.0, 99, 99.9].map { "p\(format($0, $0 == 99.9 ? 1 : 0)) \(format(run.gateway.ms($0) / run.floor.ms($0), 2))×" }
        say(
            "homegate / floor: \(ratios.joined(separator: ", ")); added at p50 \(format(run.gateway.ms(50) - run.floor.ms(50), 3)) ms, "
                + "at p99 \(format(run.gateway.ms(99) - run.floor.ms(99), 3)) ms")
        for (path, figures) in [("homegate", run.gateway), ("floor", run.floor)] where !figures.stalls.isEmpty {
            let listed = figures.stalls.prefix(20).map { "\(format($0.at, 1)) s: \(format($0.ms, 1)) ms" }.joined(separator: ", ")
            say("stalls, \(path): \(listed)\(figures.stalls.count > 20 ? ", …" : "")")
            let episodes = figures.episodes
            if episodes.count > 1 {
                let gaps = zip(episodes.dropFirst(), episodes).map { $0 - $1 }
                say("  \(episodes.count) episodes, \(format(gaps.sorted()[gaps.count / 2], 1)) s apart (median)")
            }
        }
        if let cpu = run.cpuPercent {
            say("homegate CPU \(format(cpu, 1))% of one core; RSS \(mb(run.rssKiB)) MB, peak \(mb(run.peakRSSKiB)) MB")
        }
    }

    static func ingest(_ paths: [(IngestPath, [IngestStep])], sizes: (eventBytes: Int, stateBytes: Int), stepSeconds: Double) {
        say(
            "### ingest ceiling: readings at a steady rate for \(format(stepSeconds, 0)) s per step, doubling until something is lost or arrives late, then narrowing"
        )
        say(
            "(the relay publishes a \(sizes.eventBytes)-byte event and a \(sizes.stateBytes)-byte retained state per reading, "
                + "the medians of homegate's for these sensors; CPU in % of one core over the step: the process that turns "
                + "readings into events, the broker, and this benchmark, which publishes the readings and subscribes)")
        say("")
        say("| path | asked /s | published /s | arrived / sent | behind at the end s | CPU far end | CPU broker | CPU bench |")
        say("| --- | --- | --- | --- | --- | --- | --- | --- |")
        func cpu(_ value: Double?) -> String { value.map { "\(format($0, 0)) %" } ?? "—" }
        for (path, steps) in paths {
            for step in steps {
                say(
                    "| \(path.label) | \(step.rate) | \(Int(step.publishedRate)) | \(step.received) / \(step.sent) | \(format(step.drain, 3)) "
                        + "| \(cpu(step.cpu.farEnd)) | \(cpu(step.cpu.broker)) | \(cpu(step.cpu.bench)) |")
            }
        }
    }

    /// `settled`: the gateway after the latency runs; `afterIngest`: after the ingest steps, if any.
    static func targets(
        _ runs: [TailRun], ingest: [IngestPath: IngestStep], devices: Int, settled: ProcessStats?, afterIngest: ProcessStats?
    ) {
        say("### targets")
        if let busy = runs.filter({ $0.background > 0 }).max(by: { $0.background < $1.background }) {
            let added = busy.gateway.ms(99) - busy.floor.ms(99)
            say("p99 at \(busy.background)/s within 1 ms of the floor's: \(format(added, 3)) ms — \(verdict(added <= 1))")
            say("max at \(busy.background)/s under 5 ms: \(format(busy.gateway.maxMs, 3)) ms — \(verdict(busy.gateway.maxMs < 5))")
            let own = busy.gateway.episodes.filter { at in !busy.floor.stalls.contains { abs($0.at - at) < 1 } }
            say(
                "stall episodes of homegate's own (none on the floor within 1 s) at \(busy.background)/s: \(own.count) — \(verdict(own.count <= 1))"
            )
        }
        if let idle = runs.first(where: { $0.background == 0 }) {
            let added = idle.gateway.ms(50) - idle.floor.ms(50)
            say("idle p50 within 0.15 ms of the floor's: \(format(added, 3)) ms — \(verdict(added <= 0.15))")
        }
        if let gateway = ingest[.gateway], let broker = ingest[.broker] {
            let ratio = gateway.publishedRate / broker.publishedRate
            say(
                "ingest ceiling: homegate \(Int(gateway.publishedRate))/s, broker alone \(Int(broker.publishedRate))/s: \(format(ratio * 100, 0))% — "
                    + verdict(ratio >= 0.5))
            if let relay = ingest[.relay] {
                say(
                    "  for scale, not a target: the no-work relay \(Int(relay.publishedRate))/s, \(format(relay.publishedRate / broker.publishedRate * 100, 0))% "
                        + "of the broker alone; homegate reaches \(format(gateway.publishedRate / relay.publishedRate * 100, 0))% of the relay"
                )
            }
        } else if ingest[.gateway] == nil, ingest[.broker] != nil {
            say("ingest ceiling: homegate kept no step — MISSES the target")
        }
        if let settled {
            let measured =
                "homegate RSS after the latency runs \(mb(settled.rssKiB)) MB "
                + "(\(mb(settled.fileKiB)) MB of it mapped from the program's files), "
                + "peak since start \(mb(settled.peakRSSKiB)) MB, with \(devices) devices"
            if devices >= 1_000 {
                let within = { (kib: Int) in kib <= 40 * 1024 }
                say(
                    "\(measured) (target ≤ 40 MB with 1,000): after the runs \(verdict(within(settled.rssKiB))), "
                        + "at the peak \(verdict(within(settled.peakRSSKiB)))")
            } else {
                say("\(measured) (target ≤ 40 MB with 1,000: `--devices 1000` checks it)")
            }
        }
        if let afterIngest {
            say(
                "  not a target: after the ingest steps, whose highest go past the ceiling on purpose (readings then wait in memory), "
                    + "RSS \(mb(afterIngest.rssKiB)) MB, peak \(mb(afterIngest.peakRSSKiB)) MB")
        }
    }

    private static func mb(_ kib: Int?) -> String { format(Double(kib ?? 0) / 1024, 1) }
    private static func verdict(_ met: Bool) -> String { met ? "meets the target" : "MISSES the target" }
}
