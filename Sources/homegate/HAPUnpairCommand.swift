import ArgumentParser
import Gateway
import GatewayCore
import HAPBridge

struct HAPUnpairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Remove a controller's pairing with a bridge, or every pairing (--all), so that it can be added to Apple Home again.",
        discussion: """
            What a home deleted in Apple Home, or a lost phone, needs: with every pairing gone the bridge is open to pairing \
            again. Removing the last admin removes every pairing (HomeKit's rule). Works whether homegate runs or not: when it \
            does, through its HTTP API (http.listen, with http.token). `homegate hap pairing` lists the controllers. Exits 1 \
            when it failed (an unknown bridge or controller too).
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "The bridge, 1 for the first (a house of more than 149 accessories has several).")
    var bridge = 1

    @Flag(help: "Remove every pairing.")
    var all = false

    @Argument(help: "The controller to remove, as `homegate hap pairing` lists it.")
    var controller: String?

    func validate() throws {
        guard all != (controller != nil) else {
            throw ValidationError(all ? "give a controller or --all, not both" : "give the controller to remove, or --all")
        }
    }

    func run() async throws {
        let settings = try loadSettings(config)
        let before: HomeKitBridgeStatus?
        let after: HomeKitBridgeStatus
        do {
            let control = try BridgeStateAccess.open(settings)
            defer { control.close() }
            before = try await control.bridges().first { $0.number == bridge }
            after = try await control.unpair(bridge: bridge, controller: all ? nil : controller)
        } catch {
            printError("homegate hap unpair: \(error)")
            throw ExitCode(1)
        }
        let left = Set(after.controllers.map(\.id))
        let removed = (before?.controllers ?? []).filter { !left.contains($0.id) }
        let label = "bridge \(after.number)\(after.name.isEmpty ? "" : " (\(after.name))")"
        if removed.isEmpty {
            print("\(label): no pairing removed (it had none)")
        } else {
            print("\(label): removed \(removed.count) pairing\(removed.count == 1 ? "" : "s")")
            for pairing in removed { print("  \(pairing.id)\(pairing.admin ? " (admin)" : "")") }
        }
        if let controller, !all, removed.contains(where: { $0.id != controller }) {
            print(
                "\(controller) was the last admin: without an admin nobody could manage the others, so HomeKit's rule removed every pairing"
            )
        }
        if after.controllers.isEmpty {
            print(
                "left: none; the bridge is open to pairing again with setup code \(after.setupCode) (homegate hap pairing shows its QR code)"
            )
        } else {
            print("left: \(after.controllers.count) pairing\(after.controllers.count == 1 ? "" : "s")")
            for pairing in after.controllers { print("  \(pairing.id)\(pairing.admin ? " (admin)" : "")") }
        }
        if !settings.hap.enabled { print("note: the bridge is off; set hap.enabled: true (or HOMEGATE_HAP_ENABLED=true) to run it") }
    }
}
