/// A controller that paired: its pairing identifier, Ed25519 long-term public key and admin bit.
public struct HAPPairing: Sendable, Hashable {
    public var controllerID: String
    public var publicKey: [UInt8]
    public var isAdmin: Bool

    public init(controllerID: String, publicKey: [UInt8], isAdmin: Bool) {
        self.controllerID = controllerID
        self.publicKey = publicKey
        self.isAdmin = isAdmin
    }
}

extension HAPPairing {
    /// The controllers that go when `controllerID` is removed from `pairings`: it, and every other
    /// one when no admin would be left (nobody could manage the rest, so the accessory goes back to
    /// unpaired). HAP's rule, for a controller's remove-pairing request and `homegate hap unpair` alike.
    public static func removal(of controllerID: String, from pairings: [HAPPairing]) -> Set<String> {
        removal(of: [controllerID], from: pairings)
    }

    /// The same rule for several controllers at once.
    public static func removal(of controllerIDs: Set<String>, from pairings: [HAPPairing]) -> Set<String> {
        let remaining = pairings.filter { !controllerIDs.contains($0.controllerID) }
        guard !remaining.isEmpty, !remaining.contains(where: \.isAdmin) else { return controllerIDs }
        return Set(remaining.map(\.controllerID)).union(controllerIDs)
    }
}
