import Synchronization
import Testing

@testable import Matter

@Suite("an application behind the node: its invokes, writes and endpoints (a bridge)")
struct ApplicationTests {
    @Test("invokes and writes of application clusters go to the handlers; the node's own clusters stay the node's")
    func handlers() throws {
        let invoked = Mutex<[CommandPath]>([])
        let written = Mutex<[(AttributePath, TLVValue)]>([])
        let node = MatterNode(
            model: DataModel(endpoints: [
                2: [
                    0x0006: DataModel.Cluster(attributes: [0: .bool(false)]),
                    0x0201: DataModel.Cluster(attributes: [0x0012: .signed(2000)]),
                ]
            ]),
            attestation: nil,
            commandHandler: { path, _ in
                invoked.withLock { $0.append(path) }
                return path.command == 1 ? .success : .status(.constraintError)
            },
            writeHandler: { path, value in
                written.withLock { $0.append((path, value)) }
                return .success
            })
        let now = ContinuousClock.now
        let on = CommandPath(endpoint: 2, cluster: 0x0006, command: 1)
        let invoke = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .bool(false)),
                TLVElement(
                    .context(2),
                    .array([TLVElement(.structure([TLVElement(.context(0), on.tlv), TLVElement(.context(1), .structure([]))]))])),
            ]))
        let (opcode, response) = try SubscriptionTests.request(node, .invokeRequest, invoke, exchange: 1, at: now)
        #expect(opcode == InteractionOpcode.invokeResponse.rawValue)
        let status = response[context: 1]?.members?.first?.value[context: 1]?[context: 1]?[context: 0]
        #expect(status == .unsigned(0))
        #expect(invoked.withLock { $0 } == [on])
        // The application changes the value when the device has it, not the node on the invoke.
        #expect(node.model.endpoints[2]?[0x0006]?.attributes[0] == .bool(false))

        let setpoint = AttributePath(endpoint: 2, cluster: 0x0201, attribute: 0x0012)
        let write = TLVEncoder.encode(
            .structure([
                TLVElement(.context(0), .bool(false)), TLVElement(.context(1), .bool(false)),
                TLVElement(
                    .context(2),
                    .array([TLVElement(.structure([TLVElement(.context(1), setpoint.tlv), TLVElement(.context(2), .signed(2250))]))])),
            ]))
        let (writeOpcode, _) = try SubscriptionTests.request(node, .writeRequest, write, exchange: 2, at: now)
        #expect(writeOpcode == InteractionOpcode.writeResponse.rawValue)
        #expect(written.withLock { $0.map(\.0) } == [setpoint] && written.withLock { $0.map(\.1) } == [.signed(2250)])
    }

    @Test("update adds and removes endpoints, fills in ServerList and the global attributes, and bumps only what changed")
    func update() {
        let node = MatterNode(
            model: DataModel(endpoints: [2: [0x0006: DataModel.Cluster(attributes: [0: .bool(false)])]]), attestation: nil)
        let before = node.model.endpoints[2]?[0x0006]?.dataVersion
        node.update { model in
            model.endpoints[3] = [
                0x001D: .descriptor(deviceTypes: [(0x0100, 3)], parts: []), 0x0006: DataModel.Cluster(attributes: [0: .bool(true)]),
            ]
            model.set(endpoint: 2, cluster: 0x0006, attribute: 0, to: .bool(false))  // unchanged
        }
        #expect(node.model.endpoints[2]?[0x0006]?.dataVersion == before)
        #expect(node.model.endpoints[3]?[0x001D]?.attributes[1] == .array([TLVElement(.unsigned(0x06)), TLVElement(.unsigned(0x1D))]))
        #expect(node.model.endpoints[3]?[0x0006]?.attributes[0xFFF9] == .array([0, 1, 2].map { TLVElement(.unsigned($0)) }))
        // A covering's list has no GoToTiltPercentage: one that tilts lists it in its own.
        #expect(NodeState.commands[ClusterID.windowCovering]?.accepted == [0x00, 0x01, 0x02, 0x05])
        node.update { model in
            model.set(endpoint: 2, cluster: 0x0006, attribute: 0, to: .bool(true))
            model.endpoints[3] = nil
        }
        #expect(node.model.endpoints[2]?[0x0006]?.dataVersion == before.map { $0 &+ 1 })
        #expect(node.model.endpoints[3] == nil)
    }
}
