import Mappings

extension Zigbee2MQTTBridge {
    /// The IEEE address of the device called `friendlyName` when it may be a group's member, whose
    /// availability counts for the group even when it has no accessory of its own (hidden behind it).
    func groupMember(named friendlyName: String) -> String? {
        groups.isEmpty ? nil : devices?.first { $0.friendlyName == friendlyName }?.ieeeAddress
    }

    /// A member's availability: the accessories of its groups, each with whether any of its members
    /// is now online (a group is reachable while one is).
    mutating func memberAvailability(_ ieeeAddress: String, online: Bool) -> [(accessory: String, online: Bool)] {
        memberOnline[ieeeAddress] = online
        return groups.compactMap { group in
            guard group.members.contains(where: { $0.ieeeAddress == ieeeAddress }), let id = idByIEEE[group.key] else { return nil }
            return (id, groupOnline(group))
        }
    }

    /// Whether any member of the group is online (a group without known members counts as online).
    func groupOnline(_ group: Zigbee2MQTTGroup) -> Bool {
        group.members.isEmpty || group.members.contains { memberOnline[$0.ieeeAddress] ?? true }
    }
}
