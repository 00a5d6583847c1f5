import Synchronization
import Testing

@testable import Matter

@Suite("commands the specification wants timed")
struct TimedCommandTests {
    @Test("a lock's LockDoor and UnlockDoor need a Timed Invoke: refused without one, handed to the application with one")
    func lockCommands() {
        let handled = Mutex<[CommandPath]>([])
        let node = MatterNode(
            model: DataModel(endpoints: [2: [0x0101: DataModel.Cluster(attributes: [0: .unsigned(1)])]]), attestation: nil,
            commandHandler: { path, _ in
                handled.withLock { $0.append(path) }
                return .success
            })
        let session = SessionContext(sessionID: 9, subject: .pase, attestationChallenge: [], now: .now)
        for command: UInt32 in [0x00, 0x01] {
            let path = CommandPath(endpoint: 2, cluster: 0x0101, command: command)
            #expect(
                node.state.withLock { $0.invoke(path, fields: .structure([]), session: session, isTimed: false) }
                    == .status(.needsTimedInteraction))
            #expect(node.state.withLock { $0.invoke(path, fields: .structure([]), session: session, isTimed: true) } == .success)
        }
        #expect(handled.withLock { $0.map(\.command) } == [0x00, 0x01])
    }
}
