public import Foundation
public import HomeModel

/// The home as it is at one moment, for front ends that serve a whole tree (HomeKit, Matter): every
/// accessory with its services and characteristics (their catalogue metadata and values), where it
/// is and whether it is reachable; when each device last reported; the homes, rooms and zones.
public struct HomeSnapshot: Sendable {
    public var accessories: [Accessory]
    public var lastSeen: [String: Date]
    public var structure: HomeStructure
    /// Whether every Zigbee2MQTT bridge has sent its device list since the start: before, the
    /// house may be as stored at the last run rather than as it is (HomeKit's `c#` waits for it).
    public var inventoriesHeard: Bool

    public init(accessories: [Accessory], lastSeen: [String: Date], structure: HomeStructure, inventoriesHeard: Bool = true) {
        self.accessories = accessories
        self.lastSeen = lastSeen
        self.structure = structure
        self.inventoriesHeard = inventoriesHeard
    }
}
