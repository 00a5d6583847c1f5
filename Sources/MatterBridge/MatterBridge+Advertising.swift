import JSON
import Matter
import MatterDNSSD
import Synchronization

extension MatterBridge {
    /// avahi registers in the background and says how it went only through each service's state:
    /// it is looked at this often (a read of the advertiser's table, no traffic).
    static let advertisingCheckInterval: Duration = .seconds(1)

    /// Keeps health's `advertisements` as avahi has them (`_matterc._udp` while commissionable,
    /// `_matter._tcp` per fabric), for `homegate doctor` and `homegate health`. Until cancelled.
    func followAdvertising(_ advertiser: MatterAdvertiser, node: MatterNode) async {
        var last: JSONValue?
        while !Task.isCancelled {
            let now = JSONValue.array(
                advertiser.states.sorted { $0.key < $1.key }.map { service, state in
                    ["service": .string(service), "advertised": .bool(state.advertised), "detail": .string(state.detail)]
                })
            if now != last {
                last = now
                state.withLock { $0.advertisements = now }
                reportHealth(fabrics: node.fabrics.count)
            }
            do {
                try await Task.sleep(for: Self.advertisingCheckInterval)
            } catch {
                return
            }
        }
    }
}
