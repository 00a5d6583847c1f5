import Foundation
import Logging
import Matter
import MatterDNSSD
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// matter-demo [--port P] [--passcode N] [--discriminator D] [--state DIR]
///
/// A Matter device for the tests with the Matter SDK's controller (scripts/matter-test.sh). Prints
/// "ready port=P passcode=N discriminator=D manual=CODE qr=MT:…" once listening.
@main
struct MatterDemo {
    static func main() async {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "matter-demo")
        logger.logLevel = ProcessInfo.processInfo.environment["MATTER_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        let log = logger

        let server: MatterServer
        let payload: SetupPayload
        let advertiser: MatterAdvertiser
        let node: MatterNode
        do {
            let options = try parse(Array(CommandLine.arguments.dropFirst()))
            let setup = try DemoSetup.load(
                folder: options["state"] ?? "matter-demo-state",
                passcode: try options["passcode"].map { try number($0, "--passcode", as: UInt32.self) },
                discriminator: try options["discriminator"].map { try number($0, "--discriminator", as: UInt16.self) })
            payload = try setup.payload()
            let instanceID = UInt64.random(in: 0...UInt64.max)
            advertiser = MatterAdvertiser(
                discriminator: setup.discriminator,
                commissionable: { discriminator in
                    .commissionable(
                        instanceID: instanceID, discriminator: discriminator, vendorID: DemoSetup.vendorID, productID: DemoSetup.productID,
                        deviceType: 0x0016, deviceName: "matter-demo")
                },
                logger: logger)
            let publisher = advertiser
            let store = setup.folder + "/node"
            node = MatterNode(
                model: DemoDevice.model(), attestation: try setup.attestation(), logger: logger,
                persist: { bytes in
                    do {
                        try DemoSetup.write(bytes, to: store)
                    } catch {
                        log.error("cannot keep the node's state: \(error)")
                    }
                },
                advertisingChanged: { publisher.update($0) })
            if let stored = FileManager.default.contents(atPath: store) { try node.restore(Array(stored)) }
            // Basic Information's StartUp event {0: SoftwareVersion}.
            node.emitEvent(endpoint: 0, cluster: 0x0028, event: 0x00, priority: .critical, fields: [TLVElement(.context(0), .unsigned(1))])
            server = MatterServer(
                port: try number(options["port"] ?? "5540", "--port", as: UInt16.self).asInt, verifier: try setup.verifier(), node: node,
                logger: logger)
        } catch {
            FileHandle.standardError.write(Data("matter-demo: \(error)\n".utf8))
            exit(2)
        }
        let serviceGroup = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await serviceGroup.run()
                    advertiser.stop()
                    exit(0)
                } catch {
                    log.error("matter-demo: \(error)")
                    exit(1)
                }
            }
            group.addTask {
                // SIGUSR1 toggles the first light: a change no controller made, for subscription tests.
                for await _ in await UnixSignalsSequence(trapping: .sigusr1) {
                    let on = node.model.endpoints[DemoDevice.firstLight]?[0x0006]?.attributes[0] == .bool(true)
                    node.setAttribute(endpoint: DemoDevice.firstLight, cluster: 0x0006, attribute: 0, to: .bool(!on))
                    log.info("SIGUSR1: light 1 \(on ? "off" : "on")")
                }
            }
            group.addTask {
                while server.listeningPort() == nil { try await Task.sleep(for: .milliseconds(10)) }
                advertiser.start(port: UInt16(server.listeningPort() ?? 0), advertising: node.advertising)
                let ready =
                    "ready port=\(server.listeningPort() ?? 0) passcode=\(payload.passcode) discriminator=\(payload.discriminator)"
                    + " manual=\(payload.manualPairingCode) qr=\(payload.qrCodePayload)\n"
                FileHandle.standardOutput.write(Data(ready.utf8))
            }
        }
    }

    static func parse(_ arguments: [String]) throws -> [String: String] {
        var options: [String: String] = [:]
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard ["--port", "--passcode", "--discriminator", "--state"].contains(name), let value = iterator.next() else {
                throw MatterError.invalidSetup(
                    "usage: matter-demo [--port P] [--passcode N] [--discriminator D] [--state DIR]; got '\(name)'")
            }
            options[String(name.dropFirst(2))] = value
        }
        return options
    }

    static func number<T: FixedWidthInteger>(_ text: String, _ option: String, as: T.Type) throws -> T {
        guard let value = T(text) else { throw MatterError.invalidSetup("\(option) '\(text)' is not a number in \(T.min)…\(T.max)") }
        return value
    }
}

extension UInt16 {
    var asInt: Int { Int(self) }
}
