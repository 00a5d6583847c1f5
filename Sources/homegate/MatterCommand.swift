import ArgumentParser
import Foundation
import Gateway
import HAPBridge
import JSON
import GatewayCore
import HAPQRCode
import MatterBridge
import Persistence
import Secrets

/// `homegate matter …`: the Matter bridge's pairing, for people.
struct MatterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matter", abstract: "The Matter bridge.", subcommands: [MatterPairingCommand.self, MatterWindowCommand.self, MatterUnpairCommand.self])
}

struct MatterPairingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pairing",
        abstract: "Print the Matter bridge's manual pairing code and QR code, and the fabrics (ecosystems) it belongs to.",
        discussion: """
            Reads the bridge's state from the database (the same configuration as `homegate run`). Before the bridge's \
            first start it makes the bridge's setup, so the code printed is the one that commissions. In a Matter \
            controller: add a Matter device, and type the manual code or scan the QR code.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Also write the QR code that commissions now (an open window's, else the bridge's own) to this file as an SVG image, readable by you alone (it holds the passcode).",
            valueName: "file"))
    var svg: String?

    func run() async throws {
        let settings = try loadSettings(config)
        let pairing: MatterPairing
        var running: JSONValue?
        var unread: String?  // why the running homegate's window (if any) is not shown
        do {
            let (store, canWrite) = try openOwnerOrReader(settings.database)
            defer { store.close() }
            pairing = try await MatterPairing.load(
                settings: settings.matter, load: { try store.adapterState($0) },
                save: canWrite ? { try await store.saveAdapterState($0, $1) } : nil)
            // homegate runs (it holds the database): its bridge may have a window open, whose code only it knows.
            if !canWrite {
                if let address = HomeKitAPI.address(settings.http.listen) {
                    let client = MatterAPIClient(client: LocalHTTPClient(address: address, token: settings.http.token?.reveal))
                    do { running = try await client.status() } catch { unread = "\(error)" }
                } else {
                    unread =
                        settings.http.listen == nil
                        ? "its HTTP API is off (http.listen)" : "its HTTP API's port is chosen at start (http.listen with port 0)"
                }
            }
        } catch {
            printError("homegate matter pairing: \(error)")
            throw ExitCode(1)
        }
        if let window = running?["window"], window != .null {
            MatterPrinting.window(window, codesAs: "window's ")
            print("the bridge's own code (it commissions while the bridge is on no fabric):")
        }
        print("manual pairing code: \(pairing.manualPairingCode)")
        print("QR code:             \(pairing.qrCodePayload)")
        if let code = HAPQRCode(pairing.qrCodePayload) { print(code.terminalText()) }
        print("discriminator:       \(pairing.discriminator)")
        if pairing.fabrics.isEmpty {
            print("fabrics:             none (open to commissioning)")
        } else {
            print("fabrics:             \(pairing.fabrics.count)")
            for fabric in pairing.fabrics {
                print(MatterUnpairCommand.line(fabric))
            }
        }
        if let unread {
            print("note: homegate runs, but an open commissioning window's code cannot be shown: \(unread)")
        }
        if let svg {
            let window = running?["window"]?["qr_payload"]?.stringValue
            try Self.writeSVG(window ?? pairing.qrCodePayload, to: svg)
            print("QR code image:       \(svg) (\(window == nil ? "the bridge's own code" : "the open window's code"))")
        }
        if !settings.matter.enabled {
            print("note: the bridge is off; set matter.enabled: true (or HOMEGATE_MATTER_ENABLED=true) to run it")
        }
    }
}

extension MatterPairingCommand {
    /// The QR code of `payload` as an SVG file of mode 600: the payload holds the setup passcode.
    static func writeSVG(_ payload: String, to path: String) throws {
        guard let code = HAPQRCode(payload) else {
            printError("homegate matter pairing: the setup code does not fit a QR code")
            throw ExitCode(1)
        }
        // Made with mode 600 from the start, beside the file, then renamed over it: never readable by others.
        let bytes = Array(code.svg(title: "Matter setup code \(payload)").utf8)
        let temporary = "\(path).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        var written = descriptor >= 0
        if written {
            written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
            written = close(descriptor) == 0 && written
            written = written && rename(temporary, path) == 0
        }
        guard written else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            printError("homegate matter pairing: cannot write the QR code to \(path): \(reason)")
            throw ExitCode(1)
        }
    }
}
