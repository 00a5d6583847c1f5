import ArgumentParser
import Gateway
import GatewayCore
import JSON
import MatterBridge
import Persistence

struct MatterUnpairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Remove the Matter bridge from a fabric (an ecosystem), or from every fabric (--all).",
        discussion: """
            What an ecosystem that lost the bridge, or one you no longer use, needs: its controllers lose the bridge at \
            once, and with no fabric left the bridge is open to commissioning again with its own code. Works whether \
            homegate runs or not: when it does, through its HTTP API (http.listen, with http.token). `homegate matter \
            pairing` lists the fabrics. Exits 1 when it failed (an unknown fabric too).
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Flag(help: "Remove every fabric.")
    var all = false

    @Argument(help: "The fabric's index, as `homegate matter pairing` lists it.")
    var index: Int?

    func validate() throws {
        guard all != (index != nil) else {
            throw ValidationError(all ? "give a fabric index or --all, not both" : "give the fabric index to remove, or --all")
        }
    }

    func run() async throws {
        let settings = try loadSettings(config)
        var removed: [String] = []
        var left: [String] = []
        var open: String?
        do {
            let access = try BridgeStateAccess.open(settings)
            defer { access.close() }
            switch access {
            case .database(let store, _):
                let change = try await MatterPairing.removeFabrics(
                    index, load: { try store.adapterState($0) }, save: { try await store.saveAdapterState($0, $1) })
                removed = change.removed.map(Self.line)
                left = change.left.map(Self.line)
                if change.left.isEmpty {
                    let pairing = try await MatterPairing.load(
                        settings: settings.matter, load: { try store.adapterState($0) }, save: { try await store.saveAdapterState($0, $1) })
                    open = pairing.manualPairingCode
                }
            case .running(let client):
                let api = MatterAPIClient(client: client)
                let before = try await api.status()
                guard before["enabled"]?.boolValue == true else {
                    throw MatterAPIClient.Refused(description: "the running homegate's Matter bridge is off (matter.enabled: false)")
                }
                let indexes = index.map { [$0] } ?? (before["fabrics"]?.arrayValue ?? []).compactMap { $0["index"]?.intValue }
                var after = before
                for index in indexes { after = try await api.removeFabric(index) }
                let kept = Set((after["fabrics"]?.arrayValue ?? []).compactMap { $0["index"]?.intValue })
                let lines = zip((before["fabrics"]?.arrayValue ?? []), MatterPrinting.fabrics(before))
                removed = lines.filter { !kept.contains($0.0["index"]?.intValue ?? 0) }.map(\.1)
                left = MatterPrinting.fabrics(after)
                open = after["manual_code"]?.stringValue
            }
        } catch {
            printError("homegate matter unpair: \(error)")
            throw ExitCode(1)
        }
        if removed.isEmpty {
            print("no fabric removed (the bridge belongs to none)")
        } else {
            print("removed \(removed.count) fabric\(removed.count == 1 ? "" : "s")")
            for line in removed { print(line) }
        }
        if left.isEmpty {
            print("left: none; the bridge is open to commissioning again\(open.map { " with manual code \($0)" } ?? "") (homegate matter pairing shows its QR code)")
        } else {
            print("left: \(left.count) fabric\(left.count == 1 ? "" : "s")")
            for line in left { print(line) }
        }
        if !settings.matter.enabled {
            print("note: the bridge is off; set matter.enabled: true (or HOMEGATE_MATTER_ENABLED=true) to run it")
        }
    }

    static func line(_ member: MatterPairing.Member) -> String {
        MatterPrinting.fabric(index: member.index, vendorID: member.vendorID, label: member.label, nodeID: member.nodeID)
    }
}
