import ArgumentParser
import Gateway
import GatewayCore
import HAPBridge

struct HAPResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Give a bridge a new identity (--identity): to HomeKit a new accessory, with no pairing.",
        discussion: """
            For "accessory already added" that `homegate hap unpair --all` does not cure (Apple Home still remembers the \
            bridge's device id): a new device id, key pair and setup ID, every pairing removed, c# back to 1, and a new \
            setup code unless hap.setup_code is configured. The accessories' rooms, scenes and automations in Apple Home \
            do not carry over: add the bridge again and set them up anew. Works whether homegate runs or not: when it \
            does, through its HTTP API (http.listen, with http.token), and the bridge is advertised with its new id at \
            once. Exits 1 when it failed.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "The bridge, 1 for the first (a house of more than 149 accessories has several).")
    var bridge = 1

    @Flag(help: "Make a new device id, key pair and setup ID, and remove every pairing.")
    var identity = false

    func validate() throws {
        guard identity else { throw ValidationError("say what to reset: --identity (for a new setup code alone, homegate hap reset-code)") }
    }

    func run() async throws {
        let settings = try loadSettings(config)
        let before: HomeKitBridgeStatus?
        let pairing: HomeKitBridgeStatus
        do {
            let control = try BridgeStateAccess.open(settings)
            defer { control.close() }
            before = try await control.bridges().first { $0.number == bridge }
            pairing = try await control.resetIdentity(bridge: bridge)
        } catch {
            printError("homegate hap reset: \(error)")
            throw ExitCode(1)
        }
        let label = "bridge \(pairing.number)\(pairing.name.isEmpty ? "" : " (\(pairing.name))")"
        print("\(label): a new identity; to HomeKit it is a new accessory")
        print("device id: \(before.map { "\($0.deviceID) → " } ?? "")\(pairing.deviceID)")
        let removed = before?.controllers.count ?? 0
        print("pairings removed: \(removed)")
        pairing.printSetup()
        print("next: in the Home app, remove the old bridge if it is still listed, then add this one with the code above")
        if !settings.hap.enabled { print("note: the bridge is off; set hap.enabled: true (or HOMEGATE_HAP_ENABLED=true) to run it") }
    }
}
