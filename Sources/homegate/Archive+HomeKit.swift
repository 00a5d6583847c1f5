import Foundation
import HAPBridge
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// "1 bridge, 2 pairings": what an export's (or a database's) HomeKit state amounts to, for people.
struct HomeKitSummary: CustomStringConvertible {
    let bridges: Int
    let pairings: Int

    init(_ states: [String: String]) {
        let stores = states.filter { $0.key.hasPrefix("hap.pairing") }
        bridges = stores.count
        pairings = stores.values.reduce(0) { $0 + ((try? JSONValue(parsing: $1))?["pairings"]?.arrayValue?.count ?? 0) }
    }

    var description: String {
        "\(bridges) bridge\(bridges == 1 ? "" : "s"), \(pairings) pairing\(pairings == 1 ? "" : "s")"
    }
}

/// Writes `text` to `path` readable by its owner only (an export with the bridge's secret key).
func writePrivately(_ text: String, to path: String) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    // A file that was there keeps its mode through O_CREAT: narrow it before writing the key.
    guard fchmod(descriptor, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
}
