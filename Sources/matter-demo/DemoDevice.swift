import Matter

/// The demo device's data model: endpoint 0 (the root node) with Descriptor (0x001D) and Basic
/// Information (0x0028). The bridge of lights and the commissioning clusters come with the rest of issue 44.
enum DemoDevice {
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
        let descriptor: [UInt32: TLVValue] = [
            0x0000: .array([TLVElement(.structure([TLVElement(.context(0), .unsigned(0x0016)), TLVElement(.context(1), .unsigned(3))]))]),  // DeviceTypeList: root node
            0x0001: .array([TLVElement(.unsigned(0x001D)), TLVElement(.unsigned(0x0028))]),  // ServerList
            0x0002: .array([]),  // ClientList
            0x0003: .array([]),  // PartsList
            0xFFFC: .unsigned(0),  // FeatureMap
            0xFFFD: .unsigned(2),  // ClusterRevision
        ]
        return DataModel(endpoints: [
            0: [0x001D: DataModel.Cluster(attributes: descriptor), 0x0028: DataModel.Cluster(attributes: basicInformation)]
        ])
    }
}
