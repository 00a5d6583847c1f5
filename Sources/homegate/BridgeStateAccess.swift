import Foundation
import Gateway
import GatewayCore
import HAPBridge
import Mosquitto
import Persistence
import Secrets

/// Where `homegate hap reset-code` and `hap unpair` make their change: the database itself when
/// homegate is not running, else the running homegate's HTTP API (it holds the database, and its
/// bridge must serve the change at once).
enum BridgeStateAccess {
    case database(SQLiteHomeStore, GatewayConfiguration)
    case running(LocalHTTPClient)

    struct Unusable: Error, CustomStringConvertible {
        let description: String
    }

    static func open(_ settings: GatewayConfiguration) throws -> BridgeStateAccess {
        do {
            let store = try SQLiteHomeStore(path: settings.database)
            if let mode = store.fileMode { printError("homegate: \(mode)") }
            return .database(store, settings)
        } catch .inUse(_, let holder) {
            guard let address = HomeKitAPI.address(settings.http.listen) else {
                throw Unusable(
                    description: settings.http.listen == nil
                        ? "homegate is running (\(holder)) and holds the database, and its HTTP API is off (http.listen): stop homegate and run this again, or turn the HTTP API on, or use the web page's HomeKit panel"
                        : "homegate is running (\(holder)) and holds the database, and its HTTP API listens on a port chosen at start (http.listen with port 0): stop homegate and run this again, or give http.listen a port"
                )
            }
            return .running(LocalHTTPClient(address: address, token: settings.http.token?.reveal))
        }
    }

    func close() {
        if case .database(let store, _) = self { store.close() }
    }

    /// `creatingIdentities`: a bridge never started gets its identity now, as `hap pairing` needs.
    func bridges(creatingIdentities: Bool = true) async throws -> [HomeKitBridgeStatus] {
        switch self {
        case .database(let store, let settings):
            return try await StoredBridges.load(
                settings: settings, storage: DatabaseStateStorage(store: store), canWrite: creatingIdentities)
        case .running(let client):
            let answer = try await client.send(HomeKitAPI.bridges)
            return try HomeKitAPI.bridges(status: answer.status, body: answer.body)
        }
    }

    func resetSetupCode(bridge number: Int) async throws -> HomeKitBridgeStatus {
        switch self {
        case .database(let store, let settings):
            return try await StoredBridges.resetSetupCode(
                bridge: number, settings: settings, storage: DatabaseStateStorage(store: store))
        case .running(let client):
            let answer = try await client.send(HomeKitAPI.resetSetupCode(bridge: number))
            return try HomeKitAPI.bridge(status: answer.status, body: answer.body)
        }
    }

    /// A new identity and no pairing; the bridge after.
    func resetIdentity(bridge number: Int) async throws -> HomeKitBridgeStatus {
        switch self {
        case .database(let store, let settings):
            return try await StoredBridges.resetIdentity(
                bridge: number, settings: settings, storage: DatabaseStateStorage(store: store))
        case .running(let client):
            let answer = try await client.send(HomeKitAPI.resetIdentity(bridge: number))
            return try HomeKitAPI.bridge(status: answer.status, body: answer.body)
        }
    }

    /// Removes one controller's pairing, or all of them when `controller` is nil; the bridge after.
    func unpair(bridge number: Int, controller: String?) async throws -> HomeKitBridgeStatus {
        switch self {
        case .database(let store, let settings):
            return try await StoredBridges.unpair(
                bridge: number, controller: controller, settings: settings, storage: DatabaseStateStorage(store: store))
        case .running(let client):
            let answer = try await client.send(HomeKitAPI.unpair(bridge: number, controller: controller))
            return try HomeKitAPI.bridge(status: answer.status, body: answer.body)
        }
    }
}

extension LocalHTTPClient {
    func send(_ request: HomeKitAPI.Request) async throws -> (status: Int, body: [UInt8]) {
        try await send(method: request.method, path: request.path)
    }
}

/// The database for a command that may run beside homegate (`hap pairing`, `matter pairing`): as
/// its owner when homegate is not running, so a first identity or setup can be stored; next to a
/// running homegate, as a reader. A loose file mode is said on standard error.
func openOwnerOrReader(_ path: String) throws(PersistenceError) -> (store: SQLiteHomeStore, canWrite: Bool) {
    do {
        let store = try SQLiteHomeStore(path: path)
        if let mode = store.fileMode { printError("homegate: \(mode)") }
        return (store, true)
    } catch .inUse {
        return (try SQLiteHomeStore(path: path, access: .reader), false)
    }
}
