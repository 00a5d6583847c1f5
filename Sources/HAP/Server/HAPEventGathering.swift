/// When one connection's events go out, and in which EVENT messages; pure, with the time passed in.
///
/// - The first change after a quiet `window` goes at once: an isolated motion or contact change
///   reaches the controller as fast as it reaches MQTT.
/// - Changes that follow within the window gather and go out when it ends, in one EVENT: a burst
///   costs at most one EVENT per window. Each EVENT sent opens a new window.
/// - Gathering keeps every value that differs from the one gathered before it for the same
///   characteristic (A→B→A sends all three: an automation may hang on the B), as HAP-NodeJS does.
/// - A button press goes at once and takes what has gathered with it; two presses of one button
///   never share an EVENT, since a controller may keep only the last entry per characteristic.
/// - Nothing goes out while a request is answered (`isDue` says when it may, the caller knows
///   whether a request is in flight); events queue behind the response, nothing is dropped.
struct HAPEventGathering {
    struct Entry: Equatable {
        var id: HAPCharacteristicID
        var value: HAPValue
        var isPress: Bool
    }

    let window: Duration
    /// In the order the changes came.
    private(set) var queue: [Entry] = []
    /// Until when the window opened by the last EVENT runs; later changes go at once again.
    private var windowEnd: ContinuousClock.Instant?

    init(window: Duration) {
        self.window = window
    }

    /// Takes changes the connection subscribed to (`presses`: the button events among them).
    mutating func add(_ changes: [HAPCharacteristicChange], presses: Set<HAPCharacteristicID>) {
        for change in changes {
            let isPress = presses.contains(change.id)
            if !isPress, let last = queue.last(where: { $0.id == change.id }), last.value == change.value { continue }
            queue.append(Entry(id: change.id, value: change.value, isPress: isPress))
        }
    }

    /// Whether what is queued should go out now (when no request is in flight).
    func isDue(at now: ContinuousClock.Instant) -> Bool {
        guard !queue.isEmpty else { return false }
        guard let windowEnd, now < windowEnd else { return true }
        return queue.contains(where: \.isPress)
    }

    /// When to look again, if something waits for its window to end.
    func deadline(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard !queue.isEmpty, !isDue(at: now) else { return nil }
        return windowEnd
    }

    /// Empties the queue into EVENT messages, oldest message first, each listing its changes newest
    /// first (HAP-NodeJS's order: Apple's controllers apply an EVENT's entries from the last to the
    /// first). `subscribed` drops what the controller unsubscribed from meanwhile. Sending values
    /// opens a window; presses alone do not, so they never hold back the next change.
    mutating func take(at now: ContinuousClock.Instant, subscribed: (HAPCharacteristicID) -> Bool) -> [[Entry]] {
        var messages: [[Entry]] = []
        var current: [Entry] = []
        var pressed: Set<HAPCharacteristicID> = []
        for entry in queue where subscribed(entry.id) {
            if entry.isPress {
                if pressed.contains(entry.id) {
                    messages.append(current)
                    current = []
                    pressed = []
                }
                pressed.insert(entry.id)
            }
            current.append(entry)
        }
        if !current.isEmpty { messages.append(current) }
        if queue.contains(where: { !$0.isPress }) { windowEnd = now + window }
        queue = []
        return messages.map { $0.reversed() }
    }
}
