import ArgumentParser
import Foundation
import Gateway
import GatewayCore
import HAPBridge
import HAPQRCode
import Persistence

struct HAPPairingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pairing",
        abstract: "Print each bridge's setup code and X-HM:// setup URI to add homegate to Apple Home, and the paired controllers.",
        discussion: """
            Reads the bridges' state from the database (the same configuration as `homegate run`). Before the bridge's \
            first start it makes the bridge's identity, so the code printed is the one that pairs. In Apple Home: Add \
            Accessory, More options, pick homegate, and type the code (or scan a QR code of the URI).
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    func run() async throws {
        let settings = try loadSettings(config)
        let bridges: [HomeKitBridgeStatus]
        do {
            let (store, canWrite) = try openOwnerOrReader(settings.database)
            defer { store.close() }
            bridges = try await StoredBridges.load(settings: settings, storage: DatabaseStateStorage(store: store), canWrite: canWrite)
        } catch {
            printError("homegate hap pairing: \(error)")
            throw ExitCode(1)
        }
        for (position, pairing) in bridges.enumerated() {
            if bridges.count > 1 {
                if position > 0 { print("") }
                print("bridge \(pairing.number): \(pairing.name), port \(pairing.port == 0 ? "any free one" : String(pairing.port))")
            }
            pairing.printSetup()
            print("device id:  \(pairing.deviceID)")
            print("c#:         \(pairing.configurationNumber)")
            pairing.printControllers()
        }
        if !settings.hap.enabled { print("note: the bridge is off; set hap.enabled: true (or HOMEGATE_HAP_ENABLED=true) to run it") }
    }
}

extension HomeKitBridgeStatus {
    /// The setup code, the URI and its QR code.
    func printSetup() {
        print("setup code: \(setupCode)")
        print("setup URI:  \(setupURI)")
        if let code = HAPQRCode(setupURI) { print(code.terminalText()) }
    }

    func printControllers() {
        if controllers.isEmpty {
            print("paired:     no (open to pairing)")
        } else {
            print("paired:     \(controllers.count) controller\(controllers.count == 1 ? "" : "s")")
            for controller in controllers { print("  \(controller.id)\(controller.admin ? " (admin)" : "")") }
        }
    }
}
