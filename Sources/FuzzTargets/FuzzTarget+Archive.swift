import Foundation
import Gateway

extension FuzzTarget {
    /// As `homegate import` reads a file, up to the point where it would store it.
    static func archive(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        _ = try? HomeArchive.read(text, file: "import.yaml", timeZone: TimeZone(identifier: "UTC")!)
        return nil
    }
}
