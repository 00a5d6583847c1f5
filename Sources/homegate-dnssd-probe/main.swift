// Advertises one fake service through DNSSD and reports on stdout, for scripts/mdns-test.sh.
//
//   homegate-dnssd-probe --name NAME [--type _hap._tcp] --port N [--txt key=value]... [--service-group]
//
// With --service-group the advertiser runs as a swift-service-lifecycle Service in a ServiceGroup
// that SIGTERM shuts down gracefully, as homegate will run it; without, it is started and stopped
// by hand.
//
// Every line it prints is one JSON object: {"event":"state",…} for each state change, and
// {"event":"txt",…} once a TXT update was handed to avahi. It reads commands from stdin, one a line:
//   txt key=value [key=value]...   set these keys in the TXT record (the others stay)
//   stop                            withdraw and exit (as does the end of stdin)
import DNSSD
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("homegate-dnssd-probe: \(message)\n".utf8))
    exit(2)
}

func pair(_ text: Substring) -> (String, String) {
    guard let equals = text.firstIndex(of: "=") else { fail("'\(text)' is not key=value") }
    return (String(text[..<equals]), String(text[text.index(after: equals)...]))
}

/// One JSON line, written at once: the test reads line by line and must never see half of one.
func emit(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func report(_ state: AdvertisementState) {
    var object: [String: Any] = ["event": "state", "description": state.description]
    switch state {
    case .stopped: object["state"] = "stopped"
    case .registering(let name): object["state"] = "registering"; object["name"] = name
    case .advertised(let name, let requested):
        object["state"] = "advertised"; object["name"] = name; object["renamedFrom"] = requested ?? NSNull()
    case .notAdvertised(let reason): object["state"] = "notAdvertised"; object["reason"] = reason
    }
    emit(object)
}

var service = DNSSDService(name: "", port: 0)
var inServiceGroup = false
var arguments = CommandLine.arguments.dropFirst()
while let option = arguments.popFirst() {
    if option == "--service-group" {
        inServiceGroup = true
        continue
    }
    guard let value = arguments.popFirst() else { fail("\(option) needs a value") }
    switch option {
    case "--name": service.name = value
    case "--type": service.type = value
    case "--port":
        guard let port = UInt16(value) else { fail("--port \(value) is not a port number") }
        service.port = port
    case "--txt": let (key, text) = pair(Substring(value)); service.txt[key] = text
    default: fail("unknown option \(option)")
    }
}

let advertiser: ServiceAdvertiser
do {
    advertiser = try ServiceAdvertiser(service)
} catch {
    fail("\(error)")
}

let reporter = Task {
    for await state in advertiser.stateChanges() { report(state) }
}

// stdin is read on a thread of its own: readLine blocks, and the cooperative pool has two threads here.
let commands = AsyncStream<String> { continuation in
    Thread.detachNewThread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }
}

/// Applies the commands until "stop" or the end of stdin.
func follow(_ commands: AsyncStream<String>, from initial: [String: String]) async {
    var txt = initial
    for await line in commands {
        let words = line.split(separator: " ")
        switch words.first {
        case "txt":
            for word in words.dropFirst() {
                let (key, value) = pair(word)
                txt[key] = value
            }
            do {
                let result = try advertiser.update(txt: txt)
                emit(["event": "txt", "result": "\(result)", "txt": txt])
            } catch {
                emit(["event": "error", "message": "\(error)"])
            }
        case "stop":
            return
        case let other:
            emit(["event": "error", "message": "unknown command '\(other ?? "")'"])
        }
    }
}

if inServiceGroup {
    var logger = Logger(label: "homegate-dnssd-probe")
    logger.logLevel = .warning
    let group = ServiceGroup(services: [advertiser], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    let follower = Task {
        await follow(commands, from: service.txt)
        await group.triggerGracefulShutdown()
    }
    do {
        try await group.run()
    } catch {
        fail("the service group ended with \(error)")
    }
    follower.cancel()
} else {
    do {
        try advertiser.start()
    } catch {
        fail("\(error)")
    }
    await follow(commands, from: service.txt)
    advertiser.stop()
}
await reporter.value
