@testable import HAPBridge
import Testing

@Suite("Names as HomeKit takes them")
struct NameTests {
    @Test("Zigbee2MQTT's friendly names become names the Home app accepts; good names stay as they are")
    func names() {
        #expect(AccessoryInformation.homeKitName("Desk Lamp") == "Desk Lamp")
        #expect(AccessoryInformation.homeKitName("living_room/lamp") == "living room lamp")
        #expect(AccessoryInformation.homeKitName("_hall__motion_") == "hall motion")
        #expect(AccessoryInformation.homeKitName("Kid's Room 2.0") == "Kid's Room 2.0")
        #expect(AccessoryInformation.homeKitName("Küche Decke") == "Küche Decke")
        #expect(AccessoryInformation.homeKitName("-Lamp (east)-") == "Lamp east")
        #expect(AccessoryInformation.homeKitName("0x0017880104e45518") == "0x0017880104e45518")
        #expect(AccessoryInformation.homeKitName("🙂/_") == "Accessory")
        #expect(AccessoryInformation.homeKitName(String(repeating: "a", count: 80)).utf8.count == 64)
    }
}
