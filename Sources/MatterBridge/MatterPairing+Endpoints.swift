import Foundation
import Matter

extension MatterPairing {
    /// How many bridged devices the stored endpoint map has numbered (nil: no map yet, before the
    /// bridge's first start), for `homegate doctor`; throws when the stored map is not one.
    public static func storedEndpoints(load: (String) throws -> String?) throws -> Int? {
        guard let text = try load(MatterBridge.endpointsKey) else { return nil }
        do {
            return try JSONDecoder().decode(EndpointMap.self, from: Data(text.utf8)).endpoints.count
        } catch {
            throw MatterError.storage("\(MatterBridge.endpointsKey) in the database is not homegate's Matter endpoint map (\(error))")
        }
    }
}
