import Testing

@testable import Mosquitto

@Suite("Topics of arriving messages")
struct TopicCacheTests {
    /// Where a String's bytes live: the same address means the same storage.
    private func storage(_ text: String) -> UnsafeRawPointer? {
        var copy = text
        return copy.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    private func topic(_ cache: TopicCache, _ text: String) -> String {
        text.withCString { cache.topic($0) }
    }

    @Test("a topic seen again is the same String as the first time, so waiting messages share it")
    func shared() {
        let cache = TopicCache()
        let first = topic(cache, "zigbee2mqtt/living_room_temperature")
        let again = topic(cache, "zigbee2mqtt/living_room_temperature")
        #expect(first == "zigbee2mqtt/living_room_temperature")
        #expect(storage(first) == storage(again))
        #expect(cache.count == 1)
    }

    @Test("every topic comes back as it was, past the bound and when all of them collide")
    func exact() {
        let topics = (0..<3_000).map { "zigbee2mqtt/sensor_\($0)" } + ["", "a", "zigbee2mqtt/é/ß", "homegate/request/home/list"]
        for cache in [TopicCache(limit: 100), TopicCache(limit: 100, hash: { _ in 0 })] {
            for _ in 0..<2 {
                for text in topics {
                    #expect(topic(cache, text) == text)
                }
            }
            #expect(cache.count <= 100)
        }
    }
}
