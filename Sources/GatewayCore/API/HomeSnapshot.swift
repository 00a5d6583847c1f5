public import Foundation
public import HomeModel

/// The home as it is at one moment, for front ends that serve a whole tree (HomeKit): every
/// accessory with its services and characteristics (their catalogue metadata and values), where it
/// is and whether it is reachable; when each device last reported; the homes, rooms and zones.
public struct HomeSnapshot: Sendable {
    public var accessories: [Accessory]
    public var lastSeen: [String: Date]
    public var structure: HomeStructure

    public init(accessories: [Accessory], lastSeen: [String: Date], structure: HomeStructure) {
        self.accessories = accessories
        self.lastSeen = lastSeen
        self.structure = structure
    }
}
