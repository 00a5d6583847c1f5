public import Foundation
import HeapModule
public import HomeModel

/// Decides when triggers fire. Characteristic events are looked up by characteristic, so an event
/// costs the same with 10 or 10,000 unrelated triggers; timers, sun events and "held for" deadlines
/// wait in one timeline ordered by date. Pure: time is always an argument.
public struct TriggerEngine: Sendable {
    struct SlotKey: Hashable, Sendable {
        var trigger: String
        /// -1 for the timer; otherwise the index of a sun or held event.
        var slot: Int
    }

    struct Scheduled: Comparable, Sendable {
        var date: Date
        var key: SlotKey
        static func < (a: Scheduled, b: Scheduled) -> Bool { a.date < b.date }
        static func == (a: Scheduled, b: Scheduled) -> Bool { a.date == b.date && a.key == b.key }
    }

    public internal(set) var triggers: [String: Trigger] = [:]
    public internal(set) var runtime: [String: TriggerRuntime] = [:]
    public let clock: ClockContext
    /// How late a fire missed while the gateway was down may still happen at start.
    public let missedGrace: TimeInterval
    /// Triggers whose runtime changed since the owner last drained them (to store).
    public internal(set) var dirty: Set<String> = []
    /// Triggers whose only change is when they last fired: worth storing, not worth hurrying for.
    public internal(set) var fired: Set<String> = []
    /// Triggers looked at for characteristic changes: for benchmarks, and to show the index works.
    public internal(set) var evaluations = 0

    var watchers: [CharacteristicPath: [String]] = [:]
    var timeline = Heap<Scheduled>()
    var pending: [SlotKey: Date] = [:]

    public init(clock: ClockContext, missedGrace: TimeInterval = 0) {
        self.clock = clock
        self.missedGrace = missedGrace
    }

    /// What to store: runtimes that changed (deadlines, schedules), and triggers that only fired.
    public mutating func drainDirty() -> (changed: Set<String>, fired: Set<String>) {
        defer {
            dirty = []
            fired = []
        }
        return (dirty, fired.subtracting(dirty))
    }

    /// When the next timer, sun event or deadline is due.
    public mutating func nextDue() -> Date? {
        while let first = timeline.min, pending[first.key] != first.date { _ = timeline.popMin() }
        return timeline.min?.date
    }

    // MARK: Adding and changing triggers

    /// A trigger as stored, at start: what it missed while the gateway was down fires now if it is
    /// within the grace window; "held for" deadlines that passed fire now if the value still holds.
    public mutating func load(
        _ trigger: Trigger, runtime stored: TriggerRuntime?, now: Date,
        value: (CharacteristicPath) -> CharacteristicValue?
    ) -> [Firing] {
        let trigger = inHouseZone(trigger)
        install(trigger)
        runtime[trigger.id] = stored ?? TriggerRuntime(since: now)
        if stored == nil { dirty.insert(trigger.id) }
        guard trigger.enabled else {
            clearPending(trigger.id)
            return []
        }
        var missed: Firing.Cause?
        var decided = false
        if let (date, cause) = latestMissed(trigger, since: runtime[trigger.id]!.since, now: now) {
            // Fired now or skipped for good: either way a later start must not decide it again.
            decided = true
            if now.timeIntervalSince(date) <= missedGrace { missed = cause }
        }
        var heldDue: Firing.Cause?
        for (index, deadline) in runtime[trigger.id]!.held.sorted(by: { $0.key < $1.key }) {
            guard index < trigger.events.count, case .characteristic(let path, let match, let duration?) = trigger.events[index] else {
                runtime[trigger.id]!.held[index] = nil  // the definition changed under it
                dirty.insert(trigger.id)
                continue
            }
            if deadline > now {
                schedule(SlotKey(trigger: trigger.id, slot: index), at: deadline)
            } else {
                runtime[trigger.id]!.held[index] = nil
                dirty.insert(trigger.id)
                if match.matches(value(path)) {
                    heldDue = .held(path, value: value(path), duration: duration, since: deadline.addingTimeInterval(-duration))
                }
            }
        }
        scheduleNext(trigger, after: now)
        if decided || heldDue != nil {
            runtime[trigger.id]!.since = now
            dirty.insert(trigger.id)
        }
        guard let cause = missed ?? heldDue, let firing = fire(trigger.id, cause, now: now, late: true, value: value) else { return [] }
        return [firing]
    }

    /// Adds a trigger, or replaces one (its schedule counts from now; pending deadlines are dropped).
    public mutating func put(_ trigger: Trigger, now: Date) {
        let trigger = inHouseZone(trigger)
        let lastFired = runtime[trigger.id]?.lastFired
        if triggers[trigger.id] != nil { _ = remove(trigger.id) }
        install(trigger)
        runtime[trigger.id] = TriggerRuntime(lastFired: lastFired, since: now)
        dirty.insert(trigger.id)
        if trigger.enabled { scheduleNext(trigger, after: now) }
    }

    /// Changes what does not affect when it fires (its name, its action sets).
    public mutating func modify(_ id: String, _ change: (inout Trigger) -> Void) {
        guard var trigger = triggers[id] else { return }
        change(&trigger)
        triggers[id] = trigger
    }

    @discardableResult
    public mutating func remove(_ id: String) -> Trigger? {
        guard let trigger = triggers.removeValue(forKey: id) else { return nil }
        for path in Set(trigger.events.compactMap(\.path)) {
            watchers[path]?.removeAll { $0 == id }
            if watchers[path]?.isEmpty == true { watchers[path] = nil }
        }
        clearPending(id)
        runtime[id] = nil
        dirty.insert(id)
        return trigger
    }

    /// Enabling starts the schedule from now: nothing missed while disabled fires.
    public mutating func setEnabled(_ id: String, _ enabled: Bool, now: Date) {
        guard var trigger = triggers[id], trigger.enabled != enabled else { return }
        trigger.enabled = enabled
        triggers[id] = trigger
        runtime[id]?.since = now
        dirty.insert(id)
        if enabled { scheduleNext(trigger, after: now) } else { clearPending(id) }
    }

    /// A timer that names no zone runs in the house's zone, whatever it was when it was made.
    private func inHouseZone(_ trigger: Trigger) -> Trigger {
        guard case .timer(var schedule) = trigger.kind, schedule.followsHouseZone else { return trigger }
        var zoned = trigger
        schedule.timeZone = clock.timeZone
        zoned.kind = .timer(schedule)
        return zoned
    }

    private mutating func install(_ trigger: Trigger) {
        triggers[trigger.id] = trigger
        for path in Set(trigger.events.compactMap(\.path)) { watchers[path, default: []].append(trigger.id) }
    }

    mutating func clearPending(_ id: String) {
        for key in pending.keys where key.trigger == id { pending[key] = nil }
        if runtime[id]?.held.isEmpty == false {
            runtime[id]?.held = [:]
            dirty.insert(id)
        }
    }

    mutating func schedule(_ key: SlotKey, at date: Date) {
        pending[key] = date
        timeline.insert(Scheduled(date: date, key: key))
    }

    /// Puts the trigger's timer and sun events on the timeline, first fire after `date`.
    mutating func scheduleNext(_ trigger: Trigger, after date: Date) {
        switch trigger.kind {
        case .timer(let schedule):
            let key = SlotKey(trigger: trigger.id, slot: -1)
            if let next = schedule.next(after: date) { self.schedule(key, at: next) } else { pending[key] = nil }
        case .events(let events):
            for (index, event) in events.enumerated() {
                guard case .sun(let sun, let offset) = event else { continue }
                let key = SlotKey(trigger: trigger.id, slot: index)
                if let next = clock.location?.next(sun, offset: offset, after: date) { schedule(key, at: next) } else { pending[key] = nil }
            }
        }
    }

    /// The latest timer or sun fire after `since` and at or before `now`.
    func latestMissed(_ trigger: Trigger, since: Date, now: Date) -> (Date, Firing.Cause)? {
        switch trigger.kind {
        case .timer(let schedule):
            return schedule.latest(atOrBefore: now, since: since).map { ($0, .timer(scheduled: $0)) }
        case .events(let events):
            var latest: (Date, Firing.Cause)?
            for case .sun(let sun, let offset) in events {
                guard let location = clock.location else { continue }
                var cursor = max(since, now.addingTimeInterval(-2 * 86_400))
                while let next = location.next(sun, offset: offset, after: cursor), next <= now {
                    if next > latest?.0 ?? .distantPast { latest = (next, .sun(sun, offset: offset, scheduled: next)) }
                    cursor = next
                }
            }
            return latest
        }
    }
}

extension TriggerEngine {
    /// The next scheduled fire of each trigger (timers, sun events, deadlines).
    public func nextFires() -> [String: Date] {
        var next: [String: Date] = [:]
        for (key, date) in pending where date < next[key.trigger] ?? .distantFuture { next[key.trigger] = date }
        return next
    }

    public func nextFires(for id: String) -> Date? {
        pending.filter { $0.key.trigger == id }.values.min()
    }
}
