import Foundation
import JSON

/// The Zigbee2MQTT fixtures copied from the reference, loaded as JSON.
enum Fixture {
    static func json(_ name: String) -> JSONValue {
        let url =
            Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json")
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name).json")
        let data = try! Data(contentsOf: url)
        return try! JSONValue(parsing: [UInt8](data))
    }

    static let devices = json("devices")

    /// The `payload` of every message in a state fixture, in order.
    static func states(_ model: String) -> [JSONValue] {
        let file = json("state-\(model)")
        let messages = file.arrayValue ?? file["messages"]?.arrayValue ?? []
        return messages.compactMap { $0["payload"] }
    }
}
