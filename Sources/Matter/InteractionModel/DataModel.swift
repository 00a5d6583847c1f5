/// The device's attributes: endpoints, their clusters, each cluster's attribute values and data
/// version. A value type; the node answers reads from it.
public struct DataModel: Sendable {
    public struct Cluster: Sendable {
        public var dataVersion: UInt32
        public var attributes: [UInt32: TLVValue]

        public init(attributes: [UInt32: TLVValue], dataVersion: UInt32 = .random(in: 0...UInt32.max)) {
            self.attributes = attributes
            self.dataVersion = dataVersion
        }
    }

    /// What a read of one path gives: a value, or a status for a concrete path that does not exist.
    public enum Report: Sendable, Equatable {
        case data(AttributePath, dataVersion: UInt32, value: TLVValue)
        case status(AttributePath, InteractionStatus)
    }

    public var endpoints: [UInt16: [UInt32: Cluster]]

    public init(endpoints: [UInt16: [UInt32: Cluster]]) {
        self.endpoints = endpoints
    }

    /// The reports for `path`: every match of a wildcard (and nothing when none matches), or the
    /// value or the reason for a concrete path.
    public func read(_ path: AttributePath) -> [Report] {
        let isConcrete = path.endpoint != nil && path.cluster != nil && path.attribute != nil
        if isConcrete, let endpoint = path.endpoint, let cluster = path.cluster, let attribute = path.attribute {
            guard let clusters = endpoints[endpoint] else { return [.status(path, .unsupportedEndpoint)] }
            guard let found = clusters[cluster] else { return [.status(path, .unsupportedCluster)] }
            guard let value = found.attributes[attribute] else { return [.status(path, .unsupportedAttribute)] }
            return [.data(path, dataVersion: found.dataVersion, value: value)]
        }
        var reports: [Report] = []
        for endpoint in endpoints.keys.sorted() where path.endpoint == nil || path.endpoint == endpoint {
            let clusters = endpoints[endpoint] ?? [:]
            for clusterID in clusters.keys.sorted() where path.cluster == nil || path.cluster == clusterID {
                let cluster = clusters[clusterID]!
                for attribute in cluster.attributes.keys.sorted() where path.attribute == nil || path.attribute == attribute {
                    let concrete = AttributePath(endpoint: endpoint, cluster: clusterID, attribute: attribute)
                    reports.append(.data(concrete, dataVersion: cluster.dataVersion, value: cluster.attributes[attribute]!))
                }
            }
        }
        return reports
    }
}
