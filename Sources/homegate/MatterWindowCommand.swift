import ArgumentParser
import Gateway
import GatewayCore
import JSON

struct MatterWindowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "window",
        abstract: "Open a commissioning window on the running Matter bridge, to add it to another ecosystem.",
        discussion: """
            Matter's multi-admin: once the bridge belongs to one ecosystem, another one adds it with a code of a window \
            the bridge opens. This asks the running homegate (its HTTP API, http.listen with http.token) to open one \
            with a fresh random passcode, and prints its manual code and QR code; type or scan either in the other \
            ecosystem's app before the window closes. Exits 1 when homegate does not run or a window is open already.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "How long the window stays open, 3 to 15 minutes.")
    var minutes = 15

    func validate() throws {
        guard (3...15).contains(minutes) else { throw ValidationError("--minutes must be 3 to 15 (a Matter window lasts 3 to 15 minutes)") }
    }

    func run() async throws {
        let settings = try loadSettings(config)
        let status: JSONValue
        do {
            let access = try BridgeStateAccess.open(settings)
            defer { access.close() }
            guard case .running(let client) = access else {
                throw MatterAPIClient.Refused(
                    description: "homegate is not running: a commissioning window is opened by the running bridge (start homegate with matter.enabled)")
            }
            status = try await MatterAPIClient(client: client).openWindow(minutes: minutes)
        } catch {
            printError("homegate matter window: \(error)")
            throw ExitCode(1)
        }
        if let window = status["window"], window != .null { MatterPrinting.window(window) }
        print("In the other ecosystem's app: add a Matter device, and type the manual code or scan the QR code.")
    }
}
