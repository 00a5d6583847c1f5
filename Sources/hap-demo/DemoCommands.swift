import HAP
import NIOPosix

/// Lines on stdin that play the device side: `set 2.10 42`, `set 2.9 true`, `press 3.9 0`; and
/// `hold` (reads wait, so that a request stays in flight) and `release`.
struct DemoCommands {
    let bridge: DemoBridge
    let report: @Sendable (String) -> Void

    func run() async {
        while let line = try? await NIOThreadPool.singleton.runIfActive({ readLine(strippingNewline: true) }) {
            let words = line.split(separator: " ").map(String.init)
            if words == ["hold"] || words == ["release"] {
                if words == ["hold"] { await bridge.hold() } else { await bridge.release() }
                report("ok \(words[0])")
                continue
            }
            guard words.count == 3, words[0] == "set" || words[0] == "press", let id = HAPCharacteristicID(words[1]) else {
                report("error unknown command: \(line)")
                continue
            }
            let value: HAPValue =
                switch words[2] {
                case "true": .bool(true)
                case "false": .bool(false)
                default: Int(words[2]).map(HAPValue.int) ?? Double(words[2]).map(HAPValue.double) ?? .string(words[2])
                }
            await bridge.set(id, value)
            report("ok \(words[0]) \(id)")
        }
    }
}
