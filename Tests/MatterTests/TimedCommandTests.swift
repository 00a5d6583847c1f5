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

extension TimedCommandTests {
    @Test("Administrator Commissioning's OpenCommissioningWindow, OpenBasicCommissioningWindow and RevokeCommissioning are timed")
    func commissioningWindowCommands() {
        #expect(ClusterID.timedCommands[ClusterID.administratorCommissioning] == [0x00, 0x01, 0x02])
        let node = MatterNode(
            model: DataModel(endpoints: [0: [ClusterID.administratorCommissioning: DataModel.Cluster(attributes: [:])]]), attestation: nil)
        let session = SessionContext(sessionID: 9, subject: .pase, attestationChallenge: [], now: .now)
        let revoke = CommandPath(endpoint: 0, cluster: ClusterID.administratorCommissioning, command: 0x02)
        #expect(
            node.state.withLock { $0.invoke(revoke, fields: .structure([]), session: session, isTimed: false) }
                == .status(.needsTimedInteraction))
        // Timed, it reaches the cluster: no window is open (WindowNotOpen).
        #expect(
            node.state.withLock { $0.invoke(revoke, fields: .structure([]), session: session, isTimed: true) }
                == .status(.failure, cluster: 4))
    }
}
