/// Access control (Matter specification 6.6): entries per fabric granting a privilege to subjects,
/// and the check every read, write and invoke goes through.
public struct AccessControlEntry: Sendable, Equatable {
    public enum Privilege: UInt8, Sendable, Comparable {
        case view = 1
        case proxyView = 2
        case operate = 3
        case manage = 4
        case administer = 5

        public static func < (a: Privilege, b: Privilege) -> Bool { a.rawValue < b.rawValue }
    }

    public enum AuthMode: UInt8, Sendable {
        case pase = 1
        case `case` = 2
        case group = 3
    }

    public struct Target: Sendable, Equatable {
        public var cluster: UInt32?
        public var endpoint: UInt16?
        public var deviceType: UInt32?
    }

    public var fabricIndex: UInt8
    public var privilege: Privilege
    public var authMode: AuthMode
    /// Node ids or CASE Authenticated Tags (0xFFFF_FFFD_xxxx_xxxx); nil for any subject.
    public var subjects: [UInt64]?
    /// nil for every endpoint and cluster.
    public var targets: [Target]?

    public var tlv: TLVValue {
        .structure([
            TLVElement(.context(1), .unsigned(UInt64(privilege.rawValue))),
            TLVElement(.context(2), .unsigned(UInt64(authMode.rawValue))),
            TLVElement(.context(3), subjects.map { .array($0.map { TLVElement(.unsigned($0)) }) } ?? .null),
            TLVElement(
                .context(4),
                targets.map {
                    .array(
                        $0.map { target in
                            TLVElement(
                                .structure([
                                    TLVElement(.context(0), target.cluster.map { .unsigned(UInt64($0)) } ?? .null),
                                    TLVElement(.context(1), target.endpoint.map { .unsigned(UInt64($0)) } ?? .null),
                                    TLVElement(.context(2), target.deviceType.map { .unsigned(UInt64($0)) } ?? .null),
                                ]))
                        })
                } ?? .null),
            TLVElement(.context(0xFE), .unsigned(UInt64(fabricIndex))),
        ])
    }

    /// An entry from a write of the ACL attribute, on the writer's fabric.
    init(tlv: TLVValue, fabricIndex: UInt8) throws {
        guard let privilege = Privilege(rawValue: try tlv.field(1, "Privilege", as: UInt8.self)),
            let authMode = AuthMode(rawValue: try tlv.field(2, "AuthMode", as: UInt8.self)), authMode != .pase
        else { throw MatterError.unexpectedTLV("an ACL entry with an unknown privilege or auth mode") }
        self.fabricIndex = fabricIndex
        self.privilege = privilege
        self.authMode = authMode
        switch tlv[context: 3] {
        case nil, .null?: subjects = nil
        case .array(let members)?:
            subjects = try members.map {
                guard let subject = $0.value.unsignedValue else { throw MatterError.unexpectedTLV("an ACL subject is not a number") }
                return subject
            }
        default: throw MatterError.unexpectedTLV("ACL subjects must be an array or null")
        }
        switch tlv[context: 4] {
        case nil, .null?: targets = nil
        case .array(let members)?:
            targets = try members.map { member in
                let value = member.value
                func optional<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _ type: T.Type) throws -> T? {
                    if value[context: tag] == nil || value[context: tag] == .null { return nil }
                    return try value.field(tag, "Target", as: T.self)
                }
                return Target(
                    cluster: try optional(0, UInt32.self), endpoint: try optional(1, UInt16.self), deviceType: try optional(2, UInt32.self))
            }
        default: throw MatterError.unexpectedTLV("ACL targets must be an array or null")
        }
        if privilege == .administer, authMode == .group { throw MatterError.unexpectedTLV("groups cannot be given Administer") }
    }

    public init(fabricIndex: UInt8, privilege: Privilege, authMode: AuthMode, subjects: [UInt64]?, targets: [Target]?) {
        self.fabricIndex = fabricIndex
        self.privilege = privilege
        self.authMode = authMode
        self.subjects = subjects
        self.targets = targets
    }
}

/// Who is asking, as far as access control is concerned.
public enum Subject: Sendable, Equatable {
    /// A PASE session: the commissioner, with Administer while it commissions (6.6.2.9).
    case pase
    case caseSession(fabricIndex: UInt8, nodeID: UInt64, tags: [UInt32])
}

enum AccessControl {
    /// Whether `subject` may act with `privilege` on `cluster` of `endpoint` under `entries`.
    static func allows(
        _ subject: Subject, _ privilege: AccessControlEntry.Privilege, endpoint: UInt16, cluster: UInt32, entries: [AccessControlEntry]
    ) -> Bool {
        guard case .caseSession(let fabricIndex, let nodeID, let tags) = subject else { return true }
        return entries.contains { entry in
            guard entry.fabricIndex == fabricIndex, entry.authMode == .case, grants(entry.privilege, privilege) else { return false }
            if let subjects = entry.subjects, !subjects.isEmpty, !subjects.contains(where: { matches($0, nodeID: nodeID, tags: tags) }) {
                return false
            }
            guard let targets = entry.targets, !targets.isEmpty else { return true }
            return targets.contains { ($0.endpoint ?? endpoint) == endpoint && ($0.cluster ?? cluster) == cluster }
        }
    }

    /// Administer grants everything; Manage also Operate and View; Operate also View (6.6.2.1).
    static func grants(_ held: AccessControlEntry.Privilege, _ needed: AccessControlEntry.Privilege) -> Bool {
        if held == .proxyView { return needed == .view || needed == .proxyView }
        return held >= needed
    }

    /// A subject matches a node id, or a CAT with the same identifier and at least its version.
    static func matches(_ subject: UInt64, nodeID: UInt64, tags: [UInt32]) -> Bool {
        if subject == nodeID { return true }
        guard subject >> 32 == 0xFFFF_FFFD else { return false }
        let tag = UInt32(truncatingIfNeeded: subject)
        return tags.contains { $0 >> 16 == tag >> 16 && $0 & 0xFFFF >= tag & 0xFFFF }
    }
}
