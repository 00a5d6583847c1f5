import GatewayCore
import Matter

/// Endpoint 0 (the root node: Descriptor, Basic Information; the node adds the commissioning
/// clusters) and endpoint 1 (the Aggregator), around the bridged endpoints of a layout.
enum RootNode {
    static let aggregator: UInt16 = 1

    static func model(name: String, layout: EndpointLayout) -> DataModel {
        var model = DataModel(endpoints: layout.clusters)
        model.endpoints[0] = [
            Cluster.descriptor: .descriptor(deviceTypes: [(0x0016, 3)], parts: [aggregator] + layout.parts),  // Root Node
            0x0028: basicInformation(name: name),
        ]
        model.endpoints[aggregator] = [Cluster.descriptor: .descriptor(deviceTypes: [(0x000E, 1)], parts: layout.parts)]
        return model
    }

    /// Brings the model's bridged endpoints to the layout: new ones added, gone ones removed (their
    /// numbers stay taken), the rest changed attribute by attribute, so that only what changed bumps
    /// a data version.
    static func apply(_ layout: EndpointLayout, to model: inout DataModel) {
        for number in model.endpoints.keys where number > aggregator && layout.clusters[number] == nil {
            model.endpoints[number] = nil
        }
        for (number, clusters) in layout.clusters {
            guard let existing = model.endpoints[number], Set(existing.keys) == Set(clusters.keys) else {
                model.endpoints[number] = clusters
                continue
            }
            for (cluster, laid) in clusters {
                // A Descriptor's ServerList is the node's to fill in.
                for (attribute, value) in laid.attributes where !(cluster == Cluster.descriptor && attribute == 1) {
                    model.set(endpoint: number, cluster: cluster, attribute: attribute, to: value)
                }
            }
        }
        model.set(endpoint: 0, cluster: Cluster.descriptor, attribute: 3, to: DataModel.Cluster.partsList([aggregator] + layout.parts))
        model.set(endpoint: aggregator, cluster: Cluster.descriptor, attribute: 3, to: DataModel.Cluster.partsList(layout.parts))
    }

    static func basicInformation(name: String) -> DataModel.Cluster {
        DataModel.Cluster(attributes: [
            0x0000: .unsigned(18),  // DataModelRevision (Matter 1.4)
            0x0001: .utf8("homegate"),  // VendorName
            0x0002: .unsigned(UInt64(MatterSetup.vendorID)),
            0x0003: .utf8("homegate"),  // ProductName
            0x0004: .unsigned(UInt64(MatterSetup.productID)),
            0x0005: .utf8(EndpointLayout.truncated(name)),  // NodeLabel
            0x0006: .utf8("XX"),  // Location
            0x0007: .unsigned(0),  // HardwareVersion
            0x0008: .utf8("0"),  // HardwareVersionString
            0x0009: .unsigned(1),  // SoftwareVersion
            0x000A: .utf8(HomegateVersion.number),  // SoftwareVersionString
            0x0013: .structure([TLVElement(.context(0), .unsigned(3)), TLVElement(.context(1), .unsigned(3))]),  // CapabilityMinima
            0xFFFC: .unsigned(0),
            0xFFFD: .unsigned(3),
        ])
    }
}
