import GatewayCore
import HomeModel
import JSON
import Testing

@testable import MatterBridge

@Suite("what the log says of a Matter controller's command the house refused")
struct QueuedCommandTests {
    static let writes = [
        WriteRequest(accessory: "lamp", service: "light", characteristic: "on", value: .bool(true)),
        WriteRequest(accessory: "lamp", service: "light", characteristic: "brightness", value: .integer(250)),
    ]

    @Test("a line per write refused, saying invoke, attribute write or ramp step, with the accessory and characteristic")
    func refusals() {
        let out = HomeError(.invalid, "brightness 250 is above its maximum 100")
        let partly = Answer.done(.writes([.success(.bool(true)), .failure(out)]))
        let invoke = QueuedCommand(command: .values(.write(Self.writes, source: .matter)), origin: .invoke)
        let lines = invoke.refusals(partly)
        #expect(lines.map(\.message) == ["a Matter invoke was refused: \(out)"])
        #expect(lines.first?.metadata == ["accessory": "lamp", "service": "light", "characteristic": "brightness"])
        #expect(invoke.refusals(.done(.writes([.success(.bool(true)), .success(.int(100))]))).isEmpty)

        // Refused as a whole: each write is named.
        let away = Answer.refused(HomeError(.unreachable, "lamp is not reachable"), partial: nil)
        let write = QueuedCommand(command: .values(.write(Self.writes, source: .matter)), origin: .attributeWrite)
        #expect(write.refusals(away).map(\.message).allSatisfy { $0.hasPrefix("a Matter attribute write was refused: ") })
        #expect(write.refusals(away).compactMap { $0.metadata["characteristic"] } == ["on", "brightness"])
        let step = QueuedCommand(command: .values(.write(Self.writes, source: .matter)), origin: .rampStep)
        #expect(step.refusals(away).first?.message.hasPrefix("a Matter ramp step was refused: ") == true)
    }
}
