import Foundation
import Gateway
import Logging
import MosquittoTesting
import ServiceLifecycle
import Synchronization

/// Wall-clock time the test sets: triggers see this, not the real time.
final class ManualClock: Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// homegate running in this process, as `homegate run` would, but on a manual clock.
final class InProcessGateway: Sendable {
    let group: ServiceGroup
    let task: Task<Void, any Error>
    /// Held for as long as this object lives, as a program holds its service: what `run()` lets go
    /// of when it ends must not depend on the service being released.
    let service: GatewayService

    init(house: House, clock: ManualClock, database: String? = nil, configure: (inout GatewayConfiguration) -> Void = { _ in }) throws {
        var configuration = GatewayConfiguration()
        configuration.mqtt.url = house.broker.url
        configuration.mqtt.clientID = "homegate-\(UInt32.random(in: 0...UInt32.max))"
        configuration.mappings = house.mappings.path
        configuration.database = database ?? house.broker.database
        configuration.location.latitude = 52.37
        configuration.location.longitude = 4.90
        configuration.location.timeZone = "Europe/Amsterdam"
        configure(&configuration)
        var logger = Logger(label: "homegate")
        logger.logLevel = .warning
        let service = try GatewayService(configuration: configuration, logger: logger, now: { clock.now })
        let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        self.service = service
        self.group = group
        task = Task { try await group.run() }
    }

    /// A graceful stop, as SIGTERM does it: offline published, the store written. Twice is fine.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
