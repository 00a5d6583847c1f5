import Foundation

/// Automations that set each other off through a device ("light on → run 'off'", "light off →
/// run 'on'") would go on for ever: each fire's write comes back as the device's state report,
/// in a later batch, and fires the other trigger. Counted over time, across batches:
/// - a trigger that fires more than `limit` times within `window` is in a loop;
/// - a characteristic that triggers write more than `limit` times within `window` is in a loop,
///   and so is every trigger that wrote it in that time.
struct LoopGuard {
    static let limit = 30
    static let window: TimeInterval = 10

    /// A trigger's fires within the window, oldest first; never more than `limit + 1`.
    private var fires: [String: [Date]] = [:]
    /// A characteristic's writes by triggers within the window, oldest first.
    private var writes: [String: [(at: Date, trigger: String)]] = [:]

    /// Counts a fire; true when it is one too many.
    mutating func fire(_ trigger: String, at now: Date) -> Bool {
        var recent = Self.recent(fires[trigger] ?? [], now: now) { $0 }
        recent.append(now)
        if recent.count > Self.limit + 1 { recent.removeFirst(recent.count - Self.limit - 1) }
        fires[trigger] = recent
        return recent.count > Self.limit
    }

    /// Counts a trigger's write to `path`; the triggers that wrote it too often, or none.
    mutating func write(_ path: String, by trigger: String, at now: Date) -> Set<String> {
        var recent = Self.recent(writes[path] ?? [], now: now, \.at)
        recent.append((now, trigger))
        if recent.count > Self.limit + 1 { recent.removeFirst(recent.count - Self.limit - 1) }
        writes[path] = recent
        return recent.count > Self.limit ? Set(recent.map(\.trigger)) : []
    }

    /// A stopped trigger starts counting from nothing when it is enabled again.
    mutating func forget(_ triggers: Set<String>) {
        for trigger in triggers { fires[trigger] = nil }
        for (path, recent) in writes {
            let kept = recent.filter { !triggers.contains($0.trigger) }
            writes[path] = kept.isEmpty ? nil : kept
        }
    }

    private static func recent<T>(_ entries: [T], now: Date, _ time: (T) -> Date) -> [T] {
        guard let first = entries.firstIndex(where: { now.timeIntervalSince(time($0)) <= window }) else { return [] }
        return Array(entries[first...])
    }
}
