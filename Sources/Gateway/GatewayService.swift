public import Logging
public import Mosquitto
public import ServiceLifecycle

/// The running gateway: one broker connection, announced online while it runs and offline when it stops.
public struct GatewayService: Service {
    public let configuration: GatewayConfiguration
    let client: MQTTClient
    let logger: Logger

    public init(configuration: GatewayConfiguration, logger: Logger) throws(MQTTError) {
        self.configuration = configuration
        self.client = try MQTTClient(configuration.mqttConfiguration())
        self.logger = logger
    }

    public func run() async throws {
        logger.info("connecting", metadata: ["broker": "\(client.configuration.broker)", "client_id": "\(client.configuration.clientID)"])
        try client.start()
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await watchConnection() }
                group.addTask { await consumeMessages() }
            }
        } onGracefulShutdown: { [client, configuration, logger] in
            logger.info("shutting down: publishing offline and disconnecting")
            Task { await client.shutdown(finalMessage: configuration.bridgeStatus("offline")) }
        }
        logger.info("stopped")
    }

    /// Logs each change once; a refused connection ends the gateway with the broker's reason.
    private func watchConnection() async throws {
        for await state in client.connectionEvents {
            switch state {
            case .connected:
                logger.info("connected", metadata: ["broker": "\(client.configuration.broker)"])
            case .disconnected(let reason):
                logger.warning("broker connection lost, retrying with back-off", metadata: ["reason": "\(reason)"])
            case .refused(let error):
                logger.critical("\(error); check mqtt.username and mqtt.password")
                await client.shutdown()
                throw error
            case .connecting, .closed:
                break
            }
        }
    }

    private func consumeMessages() async {
        for await _ in client.messages {}
    }
}
