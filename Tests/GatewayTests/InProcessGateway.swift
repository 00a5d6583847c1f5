import Foundation
import Gateway
import GatewayTesting
import Logging
import MosquittoTesting
import ServiceLifecycle

/// homegate running in this process, as `homegate run` would, but on a manual clock.
final class InProcessGateway: Sendable {
    let group: ServiceGroup
    let task: Task<Void, any Error>
    /// Held for as long as this object lives, as a program holds its service: what `run()` lets go
    /// of when it ends must not depend on the service being released.
    let gateway: HomeGateway

    init(house: House, clock: ManualClock, database: String? = nil, configure: (inout GatewayConfiguration) -> Void = { _ in }) throws {
        var configuration = GatewayConfiguration()
        configuration.mqtt.url = house.broker.url
        configuration.mqtt.clientID = "homegate-\(UInt32.random(in: 0...UInt32.max))"
        configuration.mappings = house.mappings.path
        configuration.database = database ?? house.broker.database
        configuration.location.latitude = 52.37
        configuration.location.longitude = 4.90
        configuration.location.timeZone = "Europe/Amsterdam"
        // One connection, so that a request answered after a device list was published comes after
        // the list is handled (`House.barrier`); ListsConnectionTests turns the second one on.
        configuration.mqtt.listsConnection = false
        configure(&configuration)
        var logger = Logger(label: "homegate")
        logger.logLevel = .warning
        let gateway = try HomeGateway(configuration: configuration, logger: logger, clock: clock)
        let group = gateway.serviceGroup(logger: logger)
        self.gateway = gateway
        self.group = group
        task = Task { try await group.run() }
    }

    /// A graceful stop, as SIGTERM does it: offline published, the store written. Twice is fine.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
