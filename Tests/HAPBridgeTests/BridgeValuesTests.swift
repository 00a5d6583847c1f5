import Foundation
import GatewayTesting
import HAP
import HomeModel
import Logging
import Mappings
import Testing

@testable import GatewayCore
@testable import HAPBridge

/// The bridge over the surface in memory: its home is the mapping file's, and nothing but the
/// events handed to the bridge here changes what the bridge holds.
@Suite("the bridge answers reads from the values it holds, kept from the events")
struct BridgeValuesTests {
    static let mapping = """
        source: mqtt
        accessories:
          - id: porch_sensor
            name: Porch Sensor
            services:
              - type: temperature_sensor
                characteristics:
                  current_temperature:
                    state: { topic: porch/temperature }
        """

    static let temperature = CharacteristicPath(
        accessory: "porch_sensor", service: "temperature_sensor", characteristic: "current_temperature")

    static func bridge() async throws -> (BridgeAccessories, any GatewayAccess) {
        var mappings = MappingSet()
        #expect(mappings.add(file: "porch.yaml", text: mapping).isEmpty)
        let gateway = InMemoryGateway(mappings: mappings)
        let registry = try await IdentifierRegistry(
            storage: IdentifierStorage(storage: MemoryStorage()), logger: Logger(label: "test"))
        let bridge = BridgeAccessories(
            access: gateway, registry: registry, index: 0,
            bridge: BridgeIdentity(name: "homegate", serialNumber: "0E:12:34:56:78:9A", firmware: "0.1.0"), logger: Logger(label: "test"))
        return (bridge, gateway)
    }

    @Test("a value event is read back at once, though the home's snapshot still has none; reachability follows its events")
    func readAfterEvent() async throws {
        let (bridge, access) = try await Self.bridge()
        let id = try #require(await bridge.refresh().ids[Self.temperature])

        let change = CharacteristicChange(
            accessory: "porch_sensor", service: "temperature_sensor", characteristic: "current_temperature", value: .float(21.5),
            previous: nil, source: .device)
        let runs = await bridge.take([.characteristic(change)])
        #expect(runs.count == 1 && runs.first?.excluding == nil)
        #expect(runs.first?.changes == [HAPCharacteristicChange(id: id, value: .double(21.5))])
        #expect(try await bridge.read([id])[id]?.get() == .double(21.5))
        let snapshot = await access.snapshot()
        let held = snapshot.accessories.first { $0.id == "porch_sensor" }?["temperature_sensor"]?["current_temperature"]?.value
        #expect(held != .float(21.5), "the core never heard of 21.5: the read came from the bridge's own values")

        let away = AccessoryPlacementState(name: "Porch Sensor", home: nil, room: nil, reachable: false)
        _ = await bridge.take([.accessory("porch_sensor", .reachability, now: away)])
        #expect(await bridge.read([id])[id].map { if case .failure(.serviceCommunicationFailure) = $0 { true } else { false } } == true)
        var back = away
        back.reachable = true
        let later = CharacteristicChange(
            accessory: "porch_sensor", service: "temperature_sensor", characteristic: "current_temperature", value: .float(19),
            previous: .float(21.5), source: .device)
        _ = await bridge.take([.accessory("porch_sensor", .reachability, now: back), .characteristic(later)])
        #expect(try await bridge.read([id])[id]?.get() == .double(19))
    }
}
