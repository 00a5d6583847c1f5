import GatewayCore
import Testing

@Suite("TreeChanges: the generation a front end lays the home out by")
struct TreeChangesSignalTests {
    @Test("a subscriber hears the newest generation, not each one it missed; the stream ends when the gateway stops")
    func newestOnly() async {
        let tree = TreeChanges()
        var heard = tree.subscribe().makeAsyncIterator()
        tree.raise()
        tree.raise()
        tree.raise()
        #expect(tree.generation == 3)
        #expect(await heard.next() == 3)
        tree.raise()
        #expect(await heard.next() == 4)
        tree.close()
        #expect(await heard.next() == nil)
        var late = tree.subscribe().makeAsyncIterator()
        #expect(await late.next() == nil, "a subscription after the stop ends at once")
    }

    @Test("each subscriber hears every raise")
    func everySubscriber() async {
        let tree = TreeChanges()
        var first = tree.subscribe().makeAsyncIterator()
        var second = tree.subscribe().makeAsyncIterator()
        tree.raise()
        #expect(await first.next() == 1)
        #expect(await second.next() == 1)
    }
}
