import ArgumentParser
import Foundation
import Gateway
import HAPBridge
import HTTPAPI
import Logging
import MatterBridge
import ServiceLifecycle
import UnixSignals

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: "Settings come from the file, then HOMEGATE_* environment variables (HOMEGATE_MQTT_URL, HOMEGATE_BASE_TOPIC, ...)."
    )

    @Option(
        name: .shortAndLong,
        help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too. Without one, defaults and the environment are used.")
    var config: String?

    func run() async throws {
        keepLargeBlocksApart()
        let settings = try loadSettings(config, forRun: true)
        let level = settings.logLevel
        LoggingSystem.bootstrap { _ in GatewayLogHandler(format: settings.logFormat, level: level) }
        let logger = Logger(label: "homegate").component(.gateway, in: settings)
        for warning in settings.warnings { logger.warning("\(warning)") }
        let gateway: HomeGateway
        do {
            var adapters: [HomeGateway.Adapter] = []
            // The HTTP API reaches the HomeKit bridge through this (the pairing panel), when the bridge is on.
            let homeKit = settings.hap.enabled ? BridgeControl(settings: settings.hap) : nil
            // And the Matter bridge (its pairing panel), when that bridge is on.
            let matterControl = settings.matter.enabled ? MatterBridgeControl() : nil
            if let address = settings.http.listen {
                let http = logger.component(.http, in: settings)
                let metrics = MetricsExporter.bootstrap()
                adapters.append { access in
                    HTTPService(
                        access: access, configuration: settings.http, address: address, metrics: metrics, homeKit: homeKit, matter: matterControl,
                        logger: http)
                }
            }
            if let homeKit {
                let hap = logger.component(.hap, in: settings)
                adapters.append { access in
                    try HomeKitBridges(access: access, settings: settings.hap, control: homeKit, logger: hap)
                }
            }
            if settings.matter.enabled {
                let matter = logger.component(.matter, in: settings)
                adapters.append { access in MatterBridge(access: access, settings: settings.matter, control: matterControl, logger: matter) }
            }
            gateway = try HomeGateway(configuration: settings, logger: logger, adapters: adapters)
        } catch {
            printError("homegate: \(error)")
            throw ExitCode(78)
        }
        let group = gateway.serviceGroup(signals: [.sigterm, .sigint], logger: logger)
        do {
            try await group.run()
        } catch {
            printError("homegate: \(error)")
            throw ExitCode(1)
        }
    }
}

/// The configuration from the file (or HOMEGATE_CONFIG) and the environment; exit 78 if it has errors.
func loadSettings(_ path: String?, forRun: Bool = false) throws -> GatewayConfiguration {
    do {
        let environment = ProcessInfo.processInfo.environment
        let file = path ?? environment["HOMEGATE_CONFIG"]
        return forRun
            ? try GatewayConfiguration.loadForRun(path: file, environment: environment)
            : try GatewayConfiguration.load(path: file, environment: environment)
    } catch {
        printError("homegate: the configuration has errors:\n\(error)")
        throw ExitCode(78)  // EX_CONFIG
    }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
