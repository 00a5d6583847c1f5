import Foundation
import JSON
import MosquittoTesting
import Testing

@Suite("A start before the broker is up", .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct StartBeforeBrokerTests {
    @Test(
        "the house known from the last run is published once the broker comes up, not lost to the connection not yet made (docker compose starts both at once)"
    )
    func knownHouseWaitsForTheBroker() async throws {
        let house = try await House()
        defer { house.stop() }
        // The broker keeps nothing across a restart (no persistence): only homegate can bring the tree back.
        house.stopGateway()
        house.broker.stop()
        try house.startGateway()
        // homegate is up and retrying; its steps (every 250 ms) render the known house meanwhile.
        let deadline = ContinuousClock.now + .seconds(20)
        while !house.gatewayLog.contains("broker connection lost, retrying with back-off") {
            guard ContinuousClock.now < deadline else { Issue.record("homegate never tried the broker: \(house.gatewayLog)"); return }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await Task.sleep(for: .seconds(1))
        let mark = house.recorder.mark
        try house.broker.start()
        try await house.recorder.wait(for: "homegate/accessories", after: mark, timeout: .seconds(20)) {
            ($0["accessories"]?.arrayValue?.count ?? 0) > 10
        }
        // Published once the subscriptions hold: a request sent on seeing the tree is heard (the
        // devices are not reachable yet, so a write would be refused; a request shows it was heard).
        try await house.recorder.publish("homegate/request/home/list", #"{"transaction":"seen-the-tree"}"#)
        try await house.recorder.wait(for: "homegate/response/home/list", after: mark, timeout: .seconds(20)) {
            $0["transaction"] == "seen-the-tree"
        }
    }
}
