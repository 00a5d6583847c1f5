import Foundation
import MosquittoTesting
import Persistence
import Testing

@Suite("homegate run narrows a database that others can read", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct DatabaseModeLogTests {
    @Test("a 0644 database is 0600 once homegate runs, and the log says so once, as a notice")
    func narrowedAtStart() async throws {
        let house = try await House(startGateway: false)
        defer { house.stop() }
        try SQLiteHomeStore(path: house.broker.database).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: house.broker.database)
        try house.startGateway([:])
        try await house.settled()
        let mode = (try FileManager.default.attributesOfItem(atPath: house.broker.database)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let lines = house.gatewayLog.split(separator: "\n").filter { $0.contains("was readable by others (mode 0644)") }
        #expect(lines.count == 1, "\(house.gatewayLog)")
        #expect(lines.first?.contains("notice") == true, "\(lines)")
        #expect(lines.first?.contains("made it 0600") == true)
    }
}
