import Foundation
import HAP
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// hap-demo [--host H] [--port P] [--store FILE] [--setup-code XXX-XX-XXX] [--coalescing-ms N] [--idle-seconds N] | --bench-srp N
///
/// Prints "ready port=P id=ID uri=X-HM://…" once listening, then "write AID.IID VALUE CONNECTION"
/// for each write; stdin takes `set AID.IID VALUE`, `press AID.IID VALUE`, `hold` and `release` (DemoCommands).
@main
struct HAPDemo {
    static func main() async {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "hap-demo")
        logger.logLevel = ProcessInfo.processInfo.environment["HAP_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info

        let options: [String: String]
        let store: any HAPPairingStore
        var configuration: HAPServerConfiguration
        do {
            options = try parse(Array(CommandLine.arguments.dropFirst()))
            store = try options["store"].map { try HAPFilePairingStore(path: $0) } ?? HAPMemoryPairingStore()
            configuration = HAPServerConfiguration(
                host: options["host"] ?? "127.0.0.1", port: Int(options["port"] ?? "0") ?? 0, model: "hap-demo")
            configuration.setupCode = try options["setup-code"].map { try HAPSetupCode($0) }
        } catch {
            FileHandle.standardError.write(Data("hap-demo: \(error)\n".utf8))
            exit(2)
        }
        if let rounds = options["bench-srp"].flatMap(Int.init) {
            print(SRPBenchmark.run(rounds: rounds))
            return
        }
        if let milliseconds = options["coalescing-ms"].flatMap(Int.init) {
            configuration.eventCoalescingDelay = .milliseconds(milliseconds)
        }
        if let seconds = options["idle-seconds"].flatMap(Int.init) {
            configuration.unverifiedIdleTimeout = .seconds(seconds)
        }
        await run(configuration: configuration, store: store, logger: logger)
    }

    static func parse(_ arguments: [String]) throws -> [String: String] {
        var options: [String: String] = [:]
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard name.hasPrefix("--"), let value = iterator.next() else {
                throw HAPError.malformedJSON("expected --name value pairs, found '\(name)'")
            }
            options[String(name.dropFirst(2))] = value
        }
        return options
    }

    static func run(configuration: HAPServerConfiguration, store: any HAPPairingStore, logger: Logger) async {
        let report: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
        let bridge = DemoBridge(report: report)
        let server = HAPServer(configuration: configuration, provider: bridge, store: store, logger: logger)
        await bridge.onChange { changes, writer in server.notify(changes, excluding: writer) }
        let serviceGroup = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))

        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await serviceGroup.run()
                    exit(0)
                } catch {
                    logger.error("hap-demo: \(error)")
                    exit(1)
                }
            }
            group.addTask {
                while server.listeningPort() == nil { try await Task.sleep(for: .milliseconds(10)) }
                let identity = try await server.identity()
                report("ready port=\(server.listeningPort() ?? 0) id=\(identity.deviceID) uri=\(try await server.setupURI())")
                // Ends at the end of stdin; the server goes on until SIGTERM or SIGINT.
                await DemoCommands(bridge: bridge, report: report).run()
            }
            while (try? await group.next()) != nil {}
        }
    }
}
