/// Invokes, and General Commissioning (Matter specification 11.10): the fail-safe and its rollback.
extension NodeState {
    /// CommissioningErrorEnum.
    enum CommissioningError: UInt64 {
        case ok = 0
        case valueOutsideRange = 1
        case invalidAuthentication = 2
        case noFailSafe = 3
        case busyWithOtherAdmin = 4
    }

    mutating func invoke(_ path: CommandPath, fields: TLVValue, session: SessionContext, isTimed: Bool) -> CommandResult {
        guard let clusters = model.endpoints[path.endpoint] else { return .status(.unsupportedEndpoint) }
        guard clusters[path.cluster] != nil else { return .status(.unsupportedCluster) }
        let accepted =
            clusters[path.cluster]?.attributes[0xFFF9]?.members?.compactMap(\.value.unsignedValue)
            ?? Self.commands[path.cluster]?.accepted ?? []
        guard accepted.contains(UInt64(path.command)) else { return .status(.unsupportedCommand) }
        let needed: AccessControlEntry.Privilege = ClusterID.administered.contains(path.cluster) ? .administer : .operate
        guard allows(session, needed, endpoint: path.endpoint, cluster: path.cluster) else { return .status(.unsupportedAccess) }
        if ClusterID.timedCommands[path.cluster]?.contains(path.command) == true, !isTimed { return .status(.needsTimedInteraction) }
        defer { refresh() }
        if let commandHandler, !ClusterID.served.contains(path.cluster) {
            return commandHandler(path, fields)
        }
        do {
            switch path.cluster {
            case ClusterID.generalCommissioning: return try generalCommissioning(path.command, fields, session: session)
            case ClusterID.operationalCredentials: return try operationalCredentials(path.command, fields, session: session)
            case ClusterID.administratorCommissioning:
                return try administratorCommissioning(path.command, fields, session: session)
            case ClusterID.onOff:  // Off, On, Toggle
                guard case .bool(let on)? = model.endpoints[path.endpoint]?[ClusterID.onOff]?.attributes[0] else {
                    return .status(.failure)
                }
                let value = path.command == 2 ? !on : path.command == 1
                model.set(endpoint: path.endpoint, cluster: ClusterID.onOff, attribute: 0, to: .bool(value))
                return .success
            default: return .status(.unsupportedCommand)
            }
        } catch {
            return .status(.invalidCommand)
        }
    }

    private mutating func generalCommissioning(_ command: UInt32, _ fields: TLVValue, session: SessionContext) throws -> CommandResult {
        func response(_ command: UInt32, _ error: CommissioningError) -> CommandResult {
            .response(command: command, fields: [TLVElement(.context(0), .unsigned(error.rawValue)), TLVElement(.context(1), .utf8(""))])
        }
        let fabric = accessingFabric(session)
        switch command {
        case 0x00:  // ArmFailSafe
            let expiry = try fields.field(0, "ExpiryLengthSeconds", as: UInt16.self)
            let breadcrumb = try fields.field(1, "Breadcrumb", as: UInt64.self)
            if let failSafe, failSafe.fabricIndex != fabric { return response(0x01, .busyWithOtherAdmin) }
            if expiry == 0 {
                if failSafe != nil { rollBack() }
                return response(0x01, .ok)
            }
            let deadline = session.now + .seconds(Int(expiry))
            if failSafe == nil {
                failSafe = FailSafe(deadline: deadline, fabricIndex: fabric)
            } else {
                failSafe?.deadline = deadline
            }
            self.breadcrumb = breadcrumb
            return response(0x01, .ok)
        case 0x02:  // SetRegulatoryConfig
            let config = try fields.field(0, "NewRegulatoryConfig", as: UInt8.self)
            guard case .utf8(let country)? = fields[context: 1], country.utf8.count == 2 else {
                throw MatterError.unexpectedTLV("CountryCode")
            }
            let breadcrumb = try fields.field(2, "Breadcrumb", as: UInt64.self)
            guard config <= 2 else { return response(0x03, .valueOutsideRange) }
            regulatoryConfig = UInt64(config)
            self.breadcrumb = breadcrumb
            return response(0x03, .ok)
        case 0x04:  // CommissioningComplete
            guard let failSafe else { return response(0x05, .noFailSafe) }
            guard case .caseSession(let sessionFabric, _, _) = session.subject,
                sessionFabric == failSafe.fabricIndex || sessionFabric == failSafe.addedFabric
            else {
                return response(0x05, .invalidAuthentication)
            }
            self.failSafe = nil
            pendingRoot = nil
            pendingKey = nil
            breadcrumb = 0
            if failSafe.addedFabric != nil { window = nil }  // a new administrator joined: the window has served
            return response(0x05, .ok)
        default:
            return .status(.unsupportedCommand)
        }
    }

    /// Expires the fail-safe at its deadline; true when it did.
    mutating func expireFailSafe(now: ContinuousClock.Instant) -> Bool {
        if let window, window.deadline <= now {
            self.window = nil
            refresh()
        }
        guard let failSafe, failSafe.deadline <= now else { return false }
        rollBack()
        refresh()
        return true
    }

    /// Undoes what the fail-safe guarded (11.10.7.2.2): the fabric AddNOC added, the NOC UpdateNOC
    /// replaced, the pending root and key; the breadcrumb goes back to 0.
    mutating func rollBack() {
        if let added = failSafe?.addedFabric {
            fabrics.removeAll { $0.index == added }
            acl.removeAll { $0.fabricIndex == added }
        }
        if let replaced = failSafe?.replacedFabric, let position = fabrics.firstIndex(where: { $0.index == replaced.index }) {
            fabrics[position] = replaced
        }
        failSafe = nil
        pendingRoot = nil
        pendingKey = nil
        breadcrumb = 0
    }
}
