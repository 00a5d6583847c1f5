import Automation

extension HomeCore {
    /// What a step (a batch of inputs, a tick, a reload) gathers for its end, where it goes out
    /// once, coalesced: a thousand readings of one accessory are one state, a bridge flapping in
    /// one batch is one event per accessory. Set between steps too (a reconnect, the start), for
    /// the next step's end.
    struct Step: Sendable {
        /// Accessories whose state is to be published.
        var dirtyStates: Set<String> = []
        var treeChanged = false
        /// Reachability at the step's start, for accessories whose reachability changed in it.
        var reachabilityBefore: [String: Bool] = [:]
        /// Each bridge's online state at the step's start, where it changed: logged once per step.
        var bridgeOnlineBefore: [String: Bool] = [:]
        /// Fires decided during the step, run at its end.
        var firingQueue: [QueuedFiring] = []
        /// Devices, groups or accessories' homes changed: the Zigbee2MQTT scenes are synced at the step's end.
        var scenesStale = false
        /// Bridges whose device or group list changed: stored at the step's end.
        var inventoriesChanged: Set<String> = []
        /// What applying a reading's values did: a buffer kept across readings, empty between them.
        var outcomes: [AccessoryTable.Outcome] = []
    }

    /// A fire and who made the change that set it off: the trigger whose write its device reported
    /// back, or nil (a device, a person, a timer). The loop guard tells a loop from a busy trigger by it.
    struct QueuedFiring: Sendable {
        var firing: Firing
        var writer: String?

        init(_ firing: Firing, writer: String? = nil) {
            self.firing = firing
            self.writer = writer
        }
    }
}
