import Foundation

/// Automations that set each other off through a device ("light on → run 'off'", "light off →
/// run 'on'") would go on for ever: each fire's write comes back as the device's state report,
/// in a later batch, and fires the other trigger. A trigger fired often is not a loop by itself
/// (a busy sensor, a button held), so each fire is told by its cause:
/// - a fire is **looping** when the change that fired it was a device's report of a write by a
///   trigger whose own fire came, write by write, from this trigger (`chain`);
/// - a trigger with more than `limit` looping fires within `window` is in a loop, and so is every
///   trigger whose looping fires wrote a characteristic more than `limit` times within `window`:
///   they are stopped;
/// - any other fire past `limit` within `window` is skipped: the trigger is busy, not looping,
///   and stays enabled.
struct LoopGuard {
    static let limit = 30
    static let window: TimeInterval = 10

    enum Verdict: Equatable {
        /// Run it; `looping` when its cause came from its own writes.
        case run(looping: Bool)
        /// Too many of its looping fires: stop the trigger.
        case loop
        /// Busy, not looping: skip this fire; `first` for the first skip of an episode.
        case skip(first: Bool)
    }

    /// A trigger's fires within the window, oldest first; never more than `limit + 1`.
    private var fires: [String: [Date]] = [:]
    /// A trigger's looping fires within the window.
    private var loopingFires: [String: [Date]] = [:]
    /// The triggers whose writes led to each trigger's last fire, and when it was.
    private var chains: [String: (at: Date, triggers: Set<String>)] = [:]
    /// A trigger's last skipped fire: a skip more than `window` after it starts a new episode.
    private var lastSkip: [String: Date] = [:]
    /// A characteristic's writes by looping fires within the window, oldest first.
    private var writes: [String: [(at: Date, trigger: String)]] = [:]

    /// Counts a fire of `trigger` set off by a device's report of a write by `writer` (nil: by a
    /// device, a person, a timer); says whether it runs.
    mutating func fire(_ trigger: String, writtenBy writer: String?, at now: Date) -> Verdict {
        var chain: Set<String> = []
        if let writer {
            chain.insert(writer)
            if let before = chains[writer], now.timeIntervalSince(before.at) <= Self.window { chain.formUnion(before.triggers) }
        }
        if chain.contains(trigger) {
            if Self.count(now, into: &loopingFires[trigger, default: []]) > Self.limit { return .loop }
            chains[trigger] = (now, chain)
            return .run(looping: true)
        }
        var recent = Self.recent(fires[trigger] ?? [], now: now) { $0 }
        if recent.count >= Self.limit {
            fires[trigger] = recent
            let first = lastSkip[trigger].map { now.timeIntervalSince($0) > Self.window } ?? true
            lastSkip[trigger] = now
            return .skip(first: first)
        }
        recent.append(now)
        fires[trigger] = recent
        chains[trigger] = (now, chain)
        return .run(looping: false)
    }

    /// Counts a looping fire's write to `path`; the triggers that wrote it too often, or none.
    mutating func write(_ path: String, by trigger: String, at now: Date) -> Set<String> {
        var recent = Self.recent(writes[path] ?? [], now: now, \.at)
        recent.append((now, trigger))
        if recent.count > Self.limit + 1 { recent.removeFirst(recent.count - Self.limit - 1) }
        writes[path] = recent
        return recent.count > Self.limit ? Set(recent.map(\.trigger)) : []
    }

    /// A stopped trigger starts counting from nothing when it is enabled again.
    mutating func forget(_ triggers: Set<String>) {
        for trigger in triggers {
            fires[trigger] = nil
            loopingFires[trigger] = nil
            chains[trigger] = nil
            lastSkip[trigger] = nil
        }
        for (path, recent) in writes {
            let kept = recent.filter { !triggers.contains($0.trigger) }
            writes[path] = kept.isEmpty ? nil : kept
        }
    }

    /// Adds `now` to a window of times; how many the window then holds (at most `limit + 1` kept).
    private static func count(_ now: Date, into times: inout [Date]) -> Int {
        times = recent(times, now: now) { $0 }
        times.append(now)
        if times.count > limit + 1 { times.removeFirst(times.count - limit - 1) }
        return times.count
    }

    private static func recent<T>(_ entries: [T], now: Date, _ time: (T) -> Date) -> [T] {
        guard let first = entries.firstIndex(where: { now.timeIntervalSince(time($0)) <= window }) else { return [] }
        return Array(entries[first...])
    }
}
