import GatewayCore
import HomeModel
import Logging
import Matter
import Synchronization

extension MatterBridge {
    /// Follows the house in one task, so a layout and the events never pass each other: when the
    /// tree has changed (a device joined, left, was renamed or excluded; the house found at start
    /// was laid out at generation `laidOut`) the bridge is laid out again from a snapshot, then the
    /// events gathered meanwhile are taken in after it, in order; the parts lists change only when
    /// the set of bridged devices does.
    func follow(_ arrivals: AsyncStream<Void>, from laidOut: UInt64, node: MatterNode) async {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let treeChanges = access.treeChanges.subscribe()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in arrivals { wake.yield() }
                wake.finish()
            }
            group.addTask {
                for await _ in treeChanges { wake.yield() }
            }
            wake.yield()  // the tree may have moved since `laidOut`
            var laid = laidOut
            for await _ in wakes {
                let generation = access.treeChanges.generation
                if generation != laid {
                    laid = generation
                    await relay(node)  // its snapshot is of `generation` or later
                }
                let (events, overflowed) = feed.take()
                if overflowed {
                    await relay(node)
                    continue
                }
                take(events, into: node)
            }
            group.cancelAll()
        }
    }

    /// The core's value and reachability changes into the node's attributes (their data versions
    /// bumped, so subscriptions report them), a button's presses as its events.
    private func take(_ events: [HomeEvent], into node: MatterNode) {
        let (changes, reachability, presses) = state.withLock { state in
            var changes: [(endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVValue)] = []
            var reachability: [(endpoint: UInt16, reachable: Bool)] = []
            var presses: [(endpoint: UInt16, cluster: UInt32, event: UInt32, fields: [TLVElement])] = []
            for event in events {
                switch event {
                case .characteristic(let change):
                    changes += state.layout.powerSourceChanges(change)
                    for number in state.layout.byAccessory[change.accessory] ?? [] {
                        guard let endpoint = state.layout.endpoints[number], endpoint.service == change.service else { continue }
                        let taken = endpoint.taking(change.characteristic, change.value, previous: change.previous)
                        state.layout.endpoints[number] = taken.endpoint
                        changes += taken.attributes.map { (number, $0.cluster, $0.attribute, $0.value) }
                        presses += taken.events.map { (number, $0.cluster, $0.event, $0.fields) }
                    }
                case .accessory(let id, .reachability, let now?):
                    for number in state.layout.byAccessory[id] ?? [] {
                        state.layout.endpoints[number]?.reachable = now.reachable
                    }
                    // Bridged Device Basic Information is the Bridged Node's: a composed device's parent.
                    if let node = state.layout.nodes[id] {
                        changes.append((node, Cluster.bridgedDeviceBasicInformation, 0x0011, .bool(now.reachable)))
                        reachability.append((node, now.reachable))
                    }
                default:
                    continue
                }
            }
            return (changes, reachability, presses)
        }
        // A button's press: each one, as the Switch cluster's events (and a lock's operations, an alarm's).
        for press in presses {
            node.emitEvent(
                endpoint: press.endpoint, cluster: press.cluster, event: press.event,
                priority: BridgedDevice.eventPriority(cluster: press.cluster, event: press.event), fields: press.fields)
        }
        node.setAttributes(changes)
        // Bridged Device Basic Information's ReachableChanged {0: ReachableNewValue}.
        for (endpoint, reachable) in reachability {
            node.emitEvent(
                endpoint: endpoint, cluster: Cluster.bridgedDeviceBasicInformation, event: 0x03, priority: .info,
                fields: [TLVElement(.context(0), .bool(reachable))])
        }
    }

    func relay(_ node: MatterNode) async {
        do {
            let layout = try await lay(await access.snapshot())
            node.update { RootNode.apply(layout, to: &$0) }
            reportHealth(fabrics: node.fabrics.count)
        } catch {
            logger.error("cannot keep the Matter endpoint numbers: \(error)")
        }
    }
}
