public import Foundation
public import HomeModel

extension HomeMachine {
    /// What one step produced, typed, for every front end to read the same way: the device
    /// messages (sent before anything else of the step), the events with their JSON written once
    /// (the MQTT event payload, SSE and WebSocket share the bytes), the accessories whose state
    /// changed or that are gone, the tree when it changed, the replies by ticket (each front end
    /// takes its own), and the changes to store with what waits for them.
    public struct Output: Sendable {
        /// Writes and requests to devices and bridges: sent before anything else of the step.
        public var devices: [Outgoing] = []
        /// The step's events, in order, each with its JSON.
        public var events: [StreamEvent] = []
        /// Accessories whose values or reachability changed (their state now), or that are gone
        /// (`accessory` nil), in order.
        public var states: [AccessoryState] = []
        /// Every accessory, when the tree changed: added, removed, renamed, moved or changed in its services.
        public var tree: [Accessory]?
        /// Whether the tree or a home, room or zone changed: front ends that lay the home out are
        /// told once (`TreeChanges`).
        public var treeChanged = false
        /// Replies to commands, under the tickets `HomeMachine` gave.
        public var replies: [Reply] = []
        /// The changes are made but could not be stored, and why: replies say so.
        public var unstored: String?
        /// The changes to store, and what waits until they are (`HomeMachine.committed`).
        public var store = StoreBatch()
        public var afterCommit: [CoreEffect] = []
        /// When the step happened.
        public var time: Date

        init(time: Date) { self.time = time }

        /// Whether its device messages are a megabyte or more: worth giving the memory back once let go.
        public var isLarge: Bool { devices.reduce(0) { $0 + $1.payload.count } >= 1 << 20 }

        /// A later output of the same step (what waited for the store, taken at once) after this one.
        mutating func append(_ later: Output) {
            devices += later.devices
            events += later.events
            states += later.states
            if let tree = later.tree { self.tree = tree }
            treeChanged = treeChanged || later.treeChanged
            replies += later.replies
            unstored = unstored ?? later.unstored
            afterCommit += later.afterCommit
        }
    }
}

/// An accessory's state at a step's end, or nil once it is gone.
public struct AccessoryState: Sendable {
    public var id: String
    public var accessory: Accessory?
}
