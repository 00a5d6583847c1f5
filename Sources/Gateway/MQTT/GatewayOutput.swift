public import Persistence

/// What one step of the gateway produced: messages to publish now, messages to publish once
/// the store has committed `store` (answers to changes of the home, fires of timers), and the
/// changes to store; and the answers to commands from inside the process (HTTP), now and once committed.
public struct GatewayOutput: Sendable {
    public var messages: [Outgoing]
    public var afterCommit: [Outgoing]
    public var store: StoreBatch
    public var answers: [LocalAnswer] = []
    public var answersAfterCommit: [LocalAnswer] = []

    public init(messages: [Outgoing] = [], afterCommit: [Outgoing] = [], store: StoreBatch = StoreBatch()) {
        self.messages = messages
        self.afterCommit = afterCommit
        self.store = store
    }

    /// Everything, in order, for tests that do not care about the commit.
    public var all: [Outgoing] { messages + afterCommit }
}
