extension DataModel.Cluster {
    /// A Descriptor (0x001D): device types with their revisions, and the endpoints the endpoint is
    /// made of (its ServerList is filled in by the node from the clusters the endpoint has).
    public static func descriptor(deviceTypes: [(type: UInt32, revision: UInt16)], parts: [UInt16]) -> DataModel.Cluster {
        DataModel.Cluster(attributes: [
            0x0000: .array(
                deviceTypes.map { type, revision in
                    TLVElement(
                        .structure([TLVElement(.context(0), .unsigned(UInt64(type))), TLVElement(.context(1), .unsigned(UInt64(revision)))])
                    )
                }),
            0x0001: .array([]),  // ServerList
            0x0002: .array([]),  // ClientList
            0x0003: partsList(parts),
            0xFFFC: .unsigned(0),
            0xFFFD: .unsigned(2),
        ])
    }

    /// A Descriptor's PartsList value.
    public static func partsList(_ parts: [UInt16]) -> TLVValue {
        .array(parts.map { TLVElement(.unsigned(UInt64($0))) })
    }
}
