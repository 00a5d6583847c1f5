import ArgumentParser
import CMosquitto

/// The floor of the tail benchmark: a trivial client that republishes every message it receives on
/// one topic to another, unparsed, from libmosquitto's own callback. Runs as its own process, as
/// homegate does, until it is signalled.
struct Echo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Republish every message on --from to --to (the broker-only floor for `tail`).")

    @Option var port: Int32
    @Option var from: String
    @Option var to: String

    func run() throws {
        let to = to
        try BareClient(filter: from) { mosq, message in
            mosquitto_publish_v5(mosq, nil, to, message.pointee.payloadlen, message.pointee.payload, 0, false, nil)
        }.run(id: "bench-echo", port: port)
    }
}
