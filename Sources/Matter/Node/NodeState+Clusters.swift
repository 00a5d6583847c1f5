/// Endpoint 0's commissioning clusters: their fixed attributes, the ones derived from the node's
/// state, the commands each accepts and generates, and the global attributes.
extension NodeState {
    /// Accepted and generated command ids per cluster, for AcceptedCommandList and GeneratedCommandList.
    static let commands: [UInt32: (accepted: [UInt64], generated: [UInt64])] = [
        ClusterID.generalCommissioning: ([0x00, 0x02, 0x04], [0x01, 0x03, 0x05]),
        ClusterID.operationalCredentials: ([0x00, 0x02, 0x04, 0x06, 0x07, 0x09, 0x0A, 0x0B], [0x01, 0x03, 0x05, 0x08]),
        ClusterID.groupKeyManagement: ([], []),
        ClusterID.onOff: ([0x00, 0x01, 0x02], []),
        // MoveToLevel, Move, Step, Stop, and their WithOnOff forms.
        ClusterID.levelControl: ([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07], []),
        // Hue, saturation and XY (MoveToHue … StepColor), MoveToColorTemperature, StopMoveStep,
        // MoveColorTemperature, StepColorTemperature; an endpoint's cluster may list fewer.
        ClusterID.colorControl: ([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x47, 0x4B, 0x4C], []),
        // Identify, TriggerEffect.
        ClusterID.identify: ([0x00, 0x40], []),
        // SetpointRaiseLower.
        ClusterID.thermostat: ([0x00], []),
        // UpOrOpen, DownOrClose, StopMotion, GoToLiftPercentage; a covering that tilts lists
        // GoToTiltPercentage in its own AcceptedCommandList.
        ClusterID.windowCovering: ([0x00, 0x01, 0x02, 0x05], []),
        // LockDoor, UnlockDoor (both timed: `timedCommands`).
        ClusterID.doorLock: ([0x00, 0x01], []),
        // Step.
        ClusterID.fanControl: ([0x00], []),
        ClusterID.administratorCommissioning: ([0x00, 0x02], []),
    ]

    static func commissioningClusters() -> [UInt32: [UInt32: TLVValue]] {
        [
            ClusterID.generalCommissioning: [
                0x0000: .unsigned(0),  // Breadcrumb
                0x0001: .structure([TLVElement(.context(0), .unsigned(60)), TLVElement(.context(1), .unsigned(900))]),  // BasicCommissioningInfo
                0x0002: .unsigned(2),  // RegulatoryConfig: IndoorOutdoor
                0x0003: .unsigned(2),  // LocationCapability: IndoorOutdoor
                0x0004: .bool(true),  // SupportsConcurrentConnection
                0xFFFC: .unsigned(0),
                0xFFFD: .unsigned(1),
            ],
            ClusterID.networkCommissioning: [
                0x0000: .unsigned(1),  // MaxNetworks
                0x0001: .array([
                    TLVElement(.structure([TLVElement(.context(0), .bytes(Array("eth0".utf8))), TLVElement(.context(1), .bool(true))]))
                ]),
                0x0004: .bool(true),  // InterfaceEnabled
                0x0005: .null,  // LastNetworkingStatus
                0x0006: .null,  // LastNetworkID
                0x0007: .null,  // LastConnectErrorValue
                0xFFFC: .unsigned(0x04),  // FeatureMap: Ethernet
                0xFFFD: .unsigned(1),
            ],
            ClusterID.operationalCredentials: [
                0x0000: .array([]),  // NOCs
                0x0001: .array([]),  // Fabrics
                0x0002: .unsigned(UInt64(supportedFabrics)),
                0x0003: .unsigned(0),  // CommissionedFabrics
                0x0004: .array([]),  // TrustedRootCertificates
                0x0005: .unsigned(0),  // CurrentFabricIndex: per session
                0xFFFC: .unsigned(0),
                0xFFFD: .unsigned(1),
            ],
            ClusterID.accessControl: [
                0x0000: .array([]),  // ACL
                0x0002: .unsigned(UInt64(subjectsPerEntry)),
                0x0003: .unsigned(UInt64(targetsPerEntry)),
                0x0004: .unsigned(UInt64(entriesPerFabric)),
                0xFFFC: .unsigned(0),
                0xFFFD: .unsigned(1),
            ],
            ClusterID.administratorCommissioning: [
                0x0000: .unsigned(0),  // WindowStatus: closed
                0x0001: .null,  // AdminFabricIndex
                0x0002: .null,  // AdminVendorId
                0xFFFC: .unsigned(0),
                0xFFFD: .unsigned(1),
            ],
            ClusterID.groupKeyManagement: [
                0x0000: .array([]),  // GroupKeyMap
                0x0001: .array([]),  // GroupTable
                0x0002: .unsigned(1),  // MaxGroupsPerFabric
                0x0003: .unsigned(1),  // MaxGroupKeysPerFabric: the IPK's key set
                0xFFFC: .unsigned(0),
                0xFFFD: .unsigned(1),
            ],
        ]
    }

    /// Writes the attributes that mirror the node's state into the model (bumping data versions on change).
    mutating func refresh() {
        let credentials = ClusterID.operationalCredentials
        model.set(
            endpoint: 0, cluster: credentials, attribute: 0,
            to: .array(
                fabrics.map { fabric in
                    TLVElement(
                        .structure([
                            TLVElement(.context(1), .bytes(fabric.noc)),
                            TLVElement(.context(2), fabric.icac.map { .bytes($0) } ?? .null),
                            TLVElement(.context(0xFE), .unsigned(UInt64(fabric.index))),
                        ]))
                }))
        model.set(
            endpoint: 0, cluster: credentials, attribute: 1,
            to: .array(
                fabrics.map { fabric in
                    TLVElement(
                        .structure([
                            TLVElement(.context(1), .bytes(fabric.rootPublicKey)),
                            TLVElement(.context(2), .unsigned(UInt64(fabric.vendorID))),
                            TLVElement(.context(3), .unsigned(fabric.fabricID)),
                            TLVElement(.context(4), .unsigned(fabric.nodeID)),
                            TLVElement(.context(5), .utf8(fabric.label)),
                            TLVElement(.context(0xFE), .unsigned(UInt64(fabric.index))),
                        ]))
                }))
        model.set(endpoint: 0, cluster: credentials, attribute: 3, to: .unsigned(UInt64(fabrics.count)))
        model.set(endpoint: 0, cluster: credentials, attribute: 4, to: .array(fabrics.map { TLVElement(.bytes($0.rootCertificate)) }))
        model.set(endpoint: 0, cluster: ClusterID.accessControl, attribute: 0, to: .array(acl.map { TLVElement($0.tlv) }))
        model.set(endpoint: 0, cluster: ClusterID.generalCommissioning, attribute: 0, to: .unsigned(breadcrumb))
        model.set(endpoint: 0, cluster: ClusterID.generalCommissioning, attribute: 2, to: .unsigned(regulatoryConfig))
        let admin = ClusterID.administratorCommissioning
        model.set(endpoint: 0, cluster: admin, attribute: 0, to: .unsigned(window == nil ? 0 : 1))
        model.set(endpoint: 0, cluster: admin, attribute: 1, to: window?.fabricIndex.map { .unsigned(UInt64($0)) } ?? .null)
        model.set(endpoint: 0, cluster: admin, attribute: 2, to: window?.vendorID.map { .unsigned(UInt64($0)) } ?? .null)
    }

    /// AttributeList, AcceptedCommandList and GeneratedCommandList for every cluster, and each
    /// Descriptor's ServerList naming its endpoint's clusters. Lists alike are one list: with a few
    /// hundred bridged endpoints most clusters list the same ids, and each copy would be memory
    /// (docs/performance.md, "The Matter bridge"). Each cluster is changed where it is, not copied.
    mutating func addGlobalAttributes() {
        var lists = SharedLists()
        for endpoint in Array(model.endpoints.keys) {
            let clusterIDs = model.endpoints[endpoint].map { Array($0.keys) } ?? []
            if clusterIDs.contains(ClusterID.descriptor) {
                let servers = lists.list(clusterIDs.sorted().map(UInt64.init))
                model.endpoints[endpoint]?[ClusterID.descriptor]?.attributes[1] = servers
            }
            for clusterID in clusterIDs {
                let commands = Self.commands[clusterID] ?? ([], [])
                // An application's cluster may list its own (a colour-temperature light's ColorControl).
                let accepted = lists.shared(model.endpoints[endpoint]?[clusterID]?.attributes[0xFFF9]) ?? lists.list(commands.accepted)
                let generated = lists.list(commands.generated)
                let present = model.endpoints[endpoint]?[clusterID]?.attributes.keys.map(UInt64.init) ?? []
                let ids = Set(present).union([0xFFF8, 0xFFF9, 0xFFFB])
                let attributeList = lists.list(ids.sorted())
                model.endpoints[endpoint]?[clusterID]?.attributes[0xFFF8] = generated
                model.endpoints[endpoint]?[clusterID]?.attributes[0xFFF9] = accepted
                model.endpoints[endpoint]?[clusterID]?.attributes[0xFFFB] = attributeList
            }
        }
    }
}

/// Lists of ids made once and handed out again: equal lists share one array.
private struct SharedLists {
    private var made: [[UInt64]: TLVValue] = [:]

    mutating func list(_ ids: [UInt64]) -> TLVValue {
        if let found = made[ids] { return found }
        let value = TLVValue.array(ids.map { TLVElement(.unsigned($0)) })
        made[ids] = value
        return value
    }

    /// The shared list equal to `value` when it is a list of plain ids; otherwise `value` itself.
    mutating func shared(_ value: TLVValue?) -> TLVValue? {
        guard case .array(let members)? = value else { return value }
        let ids = members.compactMap { $0.tag == .anonymous ? $0.value.unsignedValue : nil }
        return ids.count == members.count ? list(ids) : value
    }
}
