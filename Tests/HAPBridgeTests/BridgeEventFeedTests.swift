import Foundation
import Gateway
import HomeModel
import Testing

@testable import GatewayCore
@testable import HAPBridge

@Suite("a bridge's share of the event broadcast: batches handed over without waiting")
struct BridgeEventFeedTests {
    static func value(_ number: Int) -> StreamEvent {
        let change = CharacteristicChange(
            accessory: "bulb", service: "lightbulb", characteristic: "brightness", value: .int(number), previous: nil, source: .device)
        return StreamEvent(.characteristic(change), time: Date(timeIntervalSince1970: 0), formatted: "1970-01-01T00:00:00Z")
    }

    static let added = StreamEvent(
        .accessory("bulb", .added, now: AccessoryPlacementState(name: "Bulb", home: nil, room: nil, reachable: true)),
        time: Date(timeIntervalSince1970: 0), formatted: "1970-01-01T00:00:00Z")

    @Test("idle until the bridge serves; values and reachability kept in order, the rest left to the tree's changes")
    func gathers() async {
        let feed = PeerEventFeed.homeKit(capacity: 100)
        #expect(feed.isIdle)
        feed.receive([Self.value(1)])
        var arrivals = feed.start().makeAsyncIterator()
        #expect(!feed.isIdle && feed.counts.clients == 1)
        feed.receive([Self.value(2), Self.added])
        feed.receive([Self.value(3)])
        #expect(await arrivals.next() != nil, "one wake-up for both publishes")
        let batch = feed.take()
        #expect(!batch.overflowed)
        let values = batch.events.map { event -> CharacteristicValue? in
            if case .characteristic(let change) = event { change.value } else { nil }
        }
        #expect(values == [.int(2), .int(3)])
        feed.stop()
        #expect(feed.isIdle && feed.counts.clients == 0)
        #expect(await arrivals.next() == nil)
    }

    @Test("a bridge that falls behind by more than the capacity loses the events and is told to take a snapshot")
    func overflow() {
        let feed = PeerEventFeed.homeKit(capacity: 2)
        _ = feed.start()
        feed.receive([Self.value(1), Self.value(2), Self.value(3)])
        feed.receive([Self.value(4)])
        let batch = feed.take()
        #expect(batch.overflowed && batch.events.count == 1 && feed.counts.dropped == 1)
        #expect(!feed.take().overflowed)
    }
}
