import ArgumentParser
import Gateway
import GatewayCore
import HAPBridge

struct HAPResetCodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-code",
        abstract: "Give a bridge a new random setup code, and print it with its setup URI and QR code.",
        discussion: """
            Works whether homegate runs or not: when it does, through its HTTP API (http.listen, with http.token). The \
            pairings stay; the code is what a controller pairs with once the bridge is unpaired. Exits 78 when \
            hap.setup_code is configured (homegate puts that code back at every start: remove it first), 1 when it failed.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "The bridge, 1 for the first (a house of more than 149 accessories has several).")
    var bridge = 1

    func run() async throws {
        let settings = try loadSettings(config)
        guard settings.hap.setupCode == nil else {
            printError(
                "homegate hap reset-code: hap.setup_code is configured (in the configuration file or HOMEGATE_HAP_SETUP_CODE), and homegate puts it back at every start: remove it, then reset the code"
            )
            throw ExitCode(78)
        }
        let pairing: HomeKitBridgeStatus
        do {
            let control = try BridgeStateAccess.open(settings)
            defer { control.close() }
            pairing = try await control.resetSetupCode(bridge: bridge)
        } catch {
            printError("homegate hap reset-code: \(error)")
            throw ExitCode(1)
        }
        print("bridge \(pairing.number)\(pairing.name.isEmpty ? "" : " (\(pairing.name))"): a new setup code")
        pairing.printSetup()
        if !pairing.controllers.isEmpty {
            print(
                "note: the bridge is paired with \(pairing.controllers.count) controller\(pairing.controllers.count == 1 ? "" : "s"), which keep\(pairing.controllers.count == 1 ? "s" : "") working; the code pairs once the bridge is unpaired (homegate hap unpair --all)"
            )
        }
        if !settings.hap.enabled { print("note: the bridge is off; set hap.enabled: true (or HOMEGATE_HAP_ENABLED=true) to run it") }
    }
}
