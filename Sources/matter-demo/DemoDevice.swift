import Matter

/// The demo device's data model: endpoint 0 (the root node: Descriptor, Basic Information; the node
/// adds the commissioning clusters), endpoint 1 an Aggregator, and behind it two bridged on/off
/// lights (endpoints 2 and 3) and a bridged temperature sensor (endpoint 4).
enum DemoDevice {
    static let firstLight: UInt16 = 2

    static func model() -> DataModel {
        let basicInformation: [UInt32: TLVValue] = [
            0x0000: .unsigned(18),  // DataModelRevision (Matter 1.4)
            0x0001: .utf8("homegate"),  // VendorName
            0x0002: .unsigned(UInt64(DemoSetup.vendorID)),
            0x0003: .utf8("matter-demo"),  // ProductName
            0x0004: .unsigned(UInt64(DemoSetup.productID)),
            0x0005: .utf8(""),  // NodeLabel
            0x0006: .utf8("XX"),  // Location
            0x0007: .unsigned(0),  // HardwareVersion
            0x0008: .utf8("0"),  // HardwareVersionString
            0x0009: .unsigned(1),  // SoftwareVersion
            0x000A: .utf8("0.1"),  // SoftwareVersionString
            0x0013: .structure([TLVElement(.context(0), .unsigned(3)), TLVElement(.context(1), .unsigned(3))]),  // CapabilityMinima
            0xFFFC: .unsigned(0),  // FeatureMap
            0xFFFD: .unsigned(3),  // ClusterRevision
        ]
        return DataModel(endpoints: [
            0: [
                0x001D: .descriptor(deviceTypes: [(0x0016, 3)], parts: [1, 2, 3, 4]),
                0x0028: DataModel.Cluster(attributes: basicInformation),
            ],
            1: [0x001D: .descriptor(deviceTypes: [(0x000E, 1)], parts: [2, 3, 4])],  // Aggregator
            2: light(name: "Light 1", id: "matter-demo-light-1"),
            3: light(name: "Light 2", id: "matter-demo-light-2"),
            4: [
                0x001D: .descriptor(deviceTypes: [(0x0302, 2), (0x0013, 3)], parts: []),  // Temperature Sensor, Bridged Node
                0x0402: DataModel.Cluster(attributes: [
                    0x0000: .signed(2150), 0x0001: .signed(-4000), 0x0002: .signed(12500), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
                ]),
                0x0039: bridgedBasicInformation(name: "Sensor", id: "matter-demo-sensor"),
            ],
        ])
    }

    static func light(name: String, id: String) -> [UInt32: DataModel.Cluster] {
        [
            0x001D: .descriptor(deviceTypes: [(0x0100, 3), (0x0013, 3)], parts: []),  // On/Off Light, Bridged Node
            0x0006: DataModel.Cluster(attributes: [0x0000: .bool(false), 0xFFFC: .unsigned(0), 0xFFFD: .unsigned(6)]),
            0x0039: bridgedBasicInformation(name: name, id: id),
        ]
    }

    static func bridgedBasicInformation(name: String, id: String) -> DataModel.Cluster {
        DataModel.Cluster(attributes: [
            0x0005: .utf8(name),  // NodeLabel
            0x0011: .bool(true),  // Reachable
            0x0012: .utf8(id),  // UniqueID
            0xFFFC: .unsigned(0), 0xFFFD: .unsigned(4),
        ])
    }
}
