import ArgumentParser

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homegate-bench",
        abstract: "Benchmarks that print figures. Build with -c release.",
        subcommands: [
            MQTTReceive.self, GatewayBench.self, AutomationBench.self, TailBench.self, StreamBench.self, Echo.self, Relay.self, FanOut.self,
            Flood.self, InventoryBench.self, HoldList.self,
        ]
    )
}
