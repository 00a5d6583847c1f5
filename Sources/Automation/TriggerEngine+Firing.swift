public import Foundation
import HeapModule
public import HomeModel

extension TriggerEngine {
    /// A characteristic took a new value: the triggers watching it decide, and "held for" deadlines
    /// start or are cancelled. `previous` is nil for a stateless switch, whose every press counts.
    public mutating func changed(
        _ path: CharacteristicPath, to value: CharacteristicValue, from previous: CharacteristicValue?,
        now: Date, value lookup: (CharacteristicPath) -> CharacteristicValue?
    ) -> [Firing] {
        guard let ids = watchers[path] else { return [] }
        var firings: [Firing] = []
        for id in ids {
            evaluations += 1
            guard let trigger = triggers[id], trigger.enabled else { continue }
            var cause: Firing.Cause?
            for (index, event) in trigger.events.enumerated() {
                guard case .characteristic(let eventPath, let match, let held) = event, eventPath == path else { continue }
                let matches = match.matches(value)
                let matched = match == .anyChange ? false : match.matches(previous)
                let key = SlotKey(trigger: id, slot: index)
                if let held {
                    if matches, !matched, pending[key] == nil {
                        let deadline = now.addingTimeInterval(held)
                        schedule(key, at: deadline)
                        runtime[id, default: TriggerRuntime(since: now)].held[index] = deadline
                        dirty.insert(id)
                    } else if !matches, pending[key] != nil {
                        pending[key] = nil
                        runtime[id]?.held[index] = nil
                        dirty.insert(id)
                    }
                } else if matches, !matched, cause == nil {
                    cause = .characteristic(path, value: value, previous: previous)
                }
            }
            if let cause, let firing = fire(id, cause, now: now, late: false, value: lookup) { firings.append(firing) }
        }
        return firings
    }

    /// Timers, sun events and deadlines due at `now`, in order.
    public mutating func due(now: Date, value lookup: (CharacteristicPath) -> CharacteristicValue?) -> [Firing] {
        var firings: [Firing] = []
        while let first = timeline.min, first.date <= now {
            _ = timeline.popMin()
            guard pending[first.key] == first.date, let trigger = triggers[first.key.trigger], trigger.enabled else { continue }
            pending[first.key] = nil
            let id = trigger.id
            let cause: Firing.Cause
            if first.key.slot < 0 {
                cause = .timer(scheduled: first.date)
            } else {
                switch trigger.events[first.key.slot] {
                case .sun(let sun, let offset):
                    cause = .sun(sun, offset: offset, scheduled: first.date)
                case .characteristic(let path, let match, let duration):
                    runtime[id]?.held[first.key.slot] = nil
                    dirty.insert(id)
                    let current = lookup(path)
                    guard match.matches(current) else { continue }
                    cause = .held(path, value: current, duration: duration ?? 0, since: first.date.addingTimeInterval(-(duration ?? 0)))
                }
            }
            if first.key.slot < 0 || trigger.events[first.key.slot].path == nil {
                runtime[id]?.since = now
                dirty.insert(id)
                reschedule(first.key, of: trigger, after: now)
            }
            if let firing = fire(id, cause, now: now, late: false, value: lookup) { firings.append(firing) }
        }
        return firings
    }

    private mutating func reschedule(_ key: SlotKey, of trigger: Trigger, after date: Date) {
        if key.slot < 0 {
            guard case .timer(let schedule) = trigger.kind, let next = schedule.next(after: date) else { return }
            self.schedule(key, at: next)
        } else if case .sun(let sun, let offset) = trigger.events[key.slot],
            let next = clock.location?.next(sun, offset: offset, after: date)
        {
            schedule(key, at: next)
        }
    }

    /// Conditions decide; a fire is recorded, and an execute-once trigger disables itself.
    mutating func fire(
        _ id: String, _ cause: Firing.Cause, now: Date, late: Bool,
        value lookup: (CharacteristicPath) -> CharacteristicValue?
    ) -> Firing? {
        guard var trigger = triggers[id], trigger.enabled else { return nil }
        if let conditions = trigger.conditions, !conditions.holds(now: now, clock: clock, value: lookup) { return nil }
        runtime[id, default: TriggerRuntime(since: now)].lastFired = now
        fired.insert(id)
        var disabled = false
        if trigger.executeOnce {
            trigger.enabled = false
            triggers[id] = trigger
            clearPending(id)
            disabled = true
        }
        return Firing(trigger: id, actionSets: trigger.actionSets, cause: cause, late: late, disabledItself: disabled)
    }
}
