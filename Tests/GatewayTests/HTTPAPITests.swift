import Foundation
import Gateway
import JSON
import Mosquitto
import MosquittoTesting
import Testing

@Suite(
    "The HTTP API: the MQTT request commands as routes, JSON errors with status codes, the live event stream, the token",
    .enabled(if: TestBroker.isAvailable), .timeLimit(.minutes(2)))
struct HTTPAPITests {
    @Test("rooms over HTTP: created (201, and the same event as over MQTT), renamed, refused with the field, removed")
    func rooms() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let homes = try await http.get("/api/homes")
        #expect(homes.status == 200 && homes.json["primary"] == "home")
        #expect(homes.header("Content-Type") == "application/json")

        let mark = house.recorder.mark
        let added = try await http.send("POST", "/api/rooms", ["name": "Attic"])
        #expect(added.status == 201 && added.json == ["id": "attic", "name": "Attic", "home": "home", "accessories": []])
        let event = try await house.recorder.wait(for: "homegate/event/room/attic", after: mark)
        #expect(event["change"] == "added")

        let typo = try await http.send("POST", "/api/rooms", ["nmae": "Loft"])
        #expect(typo.status == 400 && typo.json["kind"] == "invalid" && typo.json["field"] == "nmae")
        #expect(typo.json["error"]?.stringValue?.hasPrefix("unknown field \"nmae\" (did you mean 'name'?)") == true, "\(typo.text)")
        let taken = try await http.send("POST", "/api/rooms", ["name": "ATTIC"])
        #expect(taken.status == 409 && taken.json["kind"] == "conflict", "\(taken.text)")

        // A name with a space, percent-encoded in the path.
        let renamed = try await http.send("PATCH", "/api/rooms/Attic", ["name": "Top Floor"])
        #expect(renamed.status == 200 && renamed.json["name"] == "Top Floor", "\(renamed.text)")
        let twice = try await http.send("PATCH", "/api/rooms/attic", ["room": "attic", "name": "X"])
        #expect(twice.status == 400 && twice.json["field"] == "room", "\(twice.text)")
        let removed = try await http.send("DELETE", "/api/rooms/Top%20Floor")
        #expect(removed.status == 200, "\(removed.text)")
        let gone = try await http.send("DELETE", "/api/rooms/attic")
        #expect(gone.status == 404 && gone.json["kind"] == "not_found", "\(gone.text)")
        #expect(try await house.ok("room/list")["rooms"]?.arrayValue?.contains { $0["id"] == "attic" } == false)
    }

    @Test("a write over HTTP reaches the device's /set; a value out of range is refused naming it; a read answers the value")
    func characteristics() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let mark = house.recorder.mark
        let written = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": 30, "transition": 1.5])
        #expect(written.status == 200 && written.json["results"]?[0]?["status"] == "ok", "\(written.text)")
        let set = try await house.recorder.wait(for: "zigbee2mqtt/bulb/set", after: mark) { $0["brightness"] != nil }
        #expect(set == ["brightness": 76, "transition": 1.5], "the light runs the transition it is given")
        try await house.recorder.wait(for: "homegate/state/bulb", after: mark) { $0["services"]?["lightbulb"]?["brightness"] == 30 }

        let tooBright = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": 300])
        #expect(tooBright.status == 400 && tooBright.json["field"] == "value", "\(tooBright.text)")
        #expect(tooBright.json["error"] == "bulb/lightbulb/brightness: 300 is above the maximum 100", "\(tooBright.text)")
        let slow = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": 30, "transition": "slow"])
        #expect(slow.status == 400 && slow.json["field"] == "transition", "\(slow.text)")
        #expect(slow.json["error"] == #""transition" must be seconds, a number from 0 to 6553.5"#, "\(slow.text)")
        let nobody = try await http.send("PUT", "/api/accessories/nobody/lightbulb/on", ["value": true])
        #expect(nobody.status == 404, "\(nobody.text)")

        let read = try await http.get("/api/accessories/bulb/lightbulb/brightness")
        #expect(read.status == 200 && read.json["value"] == 30, "\(read.text)")
        // The bulb has reported (it echoed the write): the tree says when.
        let tree = try await http.get("/api/accessories")
        let seen = tree.json["accessories"]?.arrayValue?.first { $0["id"] == "bulb" }?["last_seen"]?.stringValue
        #expect(seen?.hasPrefix("20") == true && seen?.hasSuffix("Z") == true, "\(tree.text)")
        let batch = try await http.send(
            "POST", "/api/characteristics/write",
            ["writes": [["characteristic": "bulb/lightbulb/on", "value": true], ["characteristic": "bulb/lightbulb/nope", "value": 1]]])
        #expect(batch.status == 404 && batch.json["data"]?["results"]?[0]?["status"] == "ok", "\(batch.text)")
    }

    @Test("a service renamed over HTTP: the answer, the tree and the MQTT event say the name; an unknown service is 404 naming it")
    func serviceRename() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let tree = try await http.get("/api/accessories")
        let services = tree.json["accessories"]?.arrayValue?.first { $0["id"] == "kitchen_wall_switch" }?["services"]?.arrayValue ?? []
        let gang = try #require(services.first?["id"]?.stringValue, "\(tree.text)")
        let mark = house.recorder.mark
        let renamed = try await http.send("PUT", "/api/accessories/kitchen_wall_switch/services/\(gang)/name", ["name": "Counter lights"])
        #expect(
            renamed.status == 200 && renamed.json == ["accessory": "kitchen_wall_switch", "service": .string(gang), "name": "Counter lights"],
            "\(renamed.text)")
        let event = try await house.recorder.wait(for: "homegate/event/accessory/kitchen_wall_switch", after: mark)
        #expect(event["change"] == "service_renamed" && event["service_name"] == "Counter lights", "\(event)")
        let after = try await http.get("/api/accessories")
        let service = after.json["accessories"]?.arrayValue?.first { $0["id"] == "kitchen_wall_switch" }?["services"]?.arrayValue?.first
        #expect(service?["name"] == "Counter lights", "\(after.text)")
        let unknown = try await http.send("PUT", "/api/accessories/kitchen_wall_switch/services/nope/name", ["name": "X"])
        #expect(unknown.status == 404 && unknown.json["field"] == "service", "\(unknown.text)")
    }

    @Test("bad requests get JSON errors: unknown route 404, wrong method 405, too large 413, not JSON 415 or 400")
    func badRequests() async throws {
        let house = try await House(environment: ["HOMEGATE_HTTP_MAX_BODY_BYTES": "2048"])
        defer { house.stop() }
        let http = try await house.http()
        let unknown = try await http.get("/api/nope")
        #expect(unknown.status == 404 && unknown.json["kind"] == "not_found")
        let method = try await http.send("DELETE", "/api/homes")
        #expect(method.status == 405 && method.header("Allow") == "GET, POST", "\(method.text)")
        let large = try await http.send("POST", "/api/rooms", ["name": .string(String(repeating: "x", count: 4096))])
        #expect(large.status == 413 && large.json["kind"] == "too_large", "\(large.text)")
        let text = try await http.send("POST", "/api/rooms", raw: Data("name=Attic".utf8), contentType: "text/plain")
        #expect(text.status == 415, "\(text.text)")
        let broken = try await http.send("POST", "/api/rooms", raw: Data("{\"name\":".utf8))
        #expect(broken.status == 400 && broken.json["error"]?.stringValue?.hasPrefix("the body is not JSON") == true, "\(broken.text)")
        let list = try await http.send("POST", "/api/rooms", ["x", "y"])
        #expect(list.status == 400, "\(list.text)")
        #expect(house.gatewayIsRunning)
    }

    @Test("the event stream carries the MQTT events, filtered by accessory; other accessories' changes are left out")
    func eventStream() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let stream = try EventStreamReader("\(http.base)/api/events?accessory=bulb")
        try await stream.waitOpen()
        // The other bulb changes first (its event is on MQTT before the bulb is written), then the bulb:
        // the stream keeps the gateway's order, so if the first event it carries is the bulb's, the
        // other bulb's was filtered out.
        let mark = house.recorder.mark
        _ = try await http.send("PUT", "/api/accessories/bulb_color_2/lightbulb/brightness", ["value": 37])
        try await house.recorder.wait(for: "homegate/event/bulb_color_2/lightbulb/brightness", after: mark) { $0["value"] == 37 }
        _ = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": 40])
        try await stream.waitFor("the bulb's event") { !$0.events.isEmpty }
        let first = try #require(stream.events.first)
        #expect(first.type == "characteristic" && first.json["accessory"] == "bulb" && first.json["value"] == 40, "\(stream.text)")
        #expect(first.json["source"] == "api" && first.json["time"] != nil)

        let rooms = try EventStreamReader("\(http.base)/api/events?type=room")
        try await rooms.waitOpen()
        _ = try await http.send("POST", "/api/rooms", ["name": "Loft"])
        try await rooms.waitFor("the room's event") { !$0.events.isEmpty }
        #expect(rooms.events.first?.type == "room" && rooms.events.first?.json["id"] == "loft", "\(rooms.text)")
    }

    @Test("one change, the same JSON byte for byte on MQTT, Server-Sent Events and WebSocket; a client that leaves is no longer counted")
    func sameBytesEverywhere() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let stream = try EventStreamReader("\(http.base)/api/events?accessory=bulb")
        try await stream.waitOpen()
        let socket = try WebSocketClient(base: http.base, path: "/api/events?accessory=bulb")
        defer { socket.disconnect() }
        try await streamClients(http, 2)
        let mark = house.recorder.mark
        _ = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": 61])
        try await house.recorder.wait(for: "homegate/event/bulb/lightbulb/brightness", after: mark) { $0["value"] == 61 }
        let mqtt = try #require(house.recorder.since(mark).last { $0.topic == "homegate/event/bulb/lightbulb/brightness" }).payloadString
        try await stream.waitFor("the event") { $0.text.contains("event: characteristic\n") }
        try await socket.waitFor("the event") { !$0.messages.isEmpty }
        #expect(stream.text.contains("event: characteristic\ndata: \(mqtt)\n\n"), "\(stream.text) against \(mqtt)")
        #expect(socket.messages.first == #"{"event":"characteristic","data":"# + mqtt + "}", "\(socket.messages) against \(mqtt)")

        socket.disconnect()
        try await streamClients(http, 1)
        stream.leave()
        // The gateway learns an SSE client has gone when a write to it fails (see `serverSentEventsSlowClient`).
        let deadline = ContinuousClock.now + .seconds(10)
        var value = 1
        while try await metric(http, "homegate_stream_clients") != 0 {
            guard ContinuousClock.now < deadline else { throw HarnessError("the gateway still counts the reader 10 s after it left") }
            value += 1
            _ = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": .integer(value)])
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("a mapping file that breaks and is mended is told on the event stream as on MQTT: every event reaches /api/events")
    func mappingFileEvents() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let stream = try EventStreamReader("\(http.base)/api/events?type=mapping_file")
        try await stream.waitOpen()
        let file = house.mappings.appendingPathComponent("broken.yaml")
        try "source: mqtt\naccessories:\n  - id: Bad Id\n".write(to: file, atomically: true, encoding: .utf8)
        try await stream.waitFor("the broken file's event") { !$0.events.isEmpty }
        let broken = try #require(stream.events.first)
        #expect(broken.type == "mapping_file" && broken.json["id"] == "broken.yaml" && broken.json["change"] == "broken", "\(stream.text)")
        #expect(broken.json["kept_previous"] == false && broken.json["errors"]?.arrayValue?.isEmpty == false)
        #expect(broken.json["file"]?.stringValue?.hasSuffix("broken.yaml") == true && broken.json["time"] != nil)
        try FileManager.default.removeItem(at: file)
        try await stream.waitFor("the event of the file taken away") { $0.events.count >= 2 }
        #expect(stream.events[1].json["change"] == "fixed" && stream.events[1].json["id"] == "broken.yaml", "\(stream.text)")
    }

    @Test("/metrics: the gateway's counters in the Prometheus text format, and each store transaction's time")
    func metrics() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        _ = try await http.send("PUT", "/api/accessories/bulb/lightbulb/brightness", ["value": 21])
        _ = try await http.send("POST", "/api/rooms", ["name": "Attic"])  // stored before it is answered
        let scrape = try await http.get("/metrics")
        #expect(scrape.status == 200 && scrape.header("Content-Type")?.hasPrefix("text/plain") == true)
        func value(_ name: String) -> Double? {
            scrape.text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect((value("homegate_device_writes_total") ?? 0) >= 1, "\(scrape.text)")
        #expect((value("homegate_events_total") ?? 0) >= 1)
        #expect((value("homegate_messages_received_total") ?? 0) >= 1)
        #expect(value("homegate_broker_connections_total") == 1)
        #expect(value("homegate_ready") == 1 && value("homegate_broker_connected") == 1)
        #expect((value("homegate_store_write_seconds_count") ?? 0) >= 1, "\(scrape.text)")
        #expect(scrape.text.contains("# HELP homegate_trigger_fires_total Triggers fired"))
        #expect(value("homegate_trigger_fires_skipped_total") == 0, "a busy trigger's skipped fires, none here")
        // Counters only grow: a second scrape adds what happened since, not everything again.
        let before = value("homegate_device_writes_total") ?? 0
        let again = try await http.get("/metrics")
        let after = again.text.split(separator: "\n").first { $0.hasPrefix("homegate_device_writes_total ") }
        #expect(after.flatMap { Double($0.split(separator: " ").last ?? "") } == before, "\(again.text)")
    }

    @Test("with a token every API route needs it (401 without, with a wrong one); health is open; the token is never logged")
    func token() async throws {
        let secret = "s3cret-token-8841"
        let house = try await House(environment: ["HOMEGATE_HTTP_TOKEN": secret])
        defer { house.stop() }
        let open = try await house.http()
        let refused = try await open.get("/api/accessories")
        #expect(refused.status == 401 && refused.json["kind"] == "unauthorized" && refused.header("WWW-Authenticate") == "Bearer")
        #expect(try await open.get("/readyz").status == 401)
        #expect(try await HTTPClient(base: open.base, token: "wrong").get("/api/homes").status == 401)
        #expect(try await open.get("/healthz").status == 200)
        let allowed = try await house.http(token: secret)
        #expect(try await allowed.get("/api/homes").status == 200)
        let ready = try await allowed.get("/readyz")
        #expect(ready.status == 200 && ready.json["ready"] == true, "\(ready.text)")
        // Browsers cannot set a header on an event stream: it takes the token in the query.
        let stream = try EventStreamReader("\(open.base)/api/events?access_token=\(secret)")
        try await stream.waitOpen()
        #expect(stream.text.hasPrefix(": homegate events"))
        #expect(!house.gatewayLog.contains(secret))
    }

    @Test("listening beyond this machine without a token is refused at start, naming the setting")
    func exposedWithoutToken() throws {
        #expect {
            try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_HTTP_LISTEN": "0.0.0.0:8080"])
        } throws: { error in
            "\(error)".contains("http.listen: 0.0.0.0:8080 can be reached from other machines: set http.token")
        }
        let configuration = try GatewayConfiguration.load(
            path: nil, environment: ["HOMEGATE_HTTP_LISTEN": "0.0.0.0:8080", "HOMEGATE_HTTP_TOKEN": "t"])
        #expect(configuration.http.listen == HTTPAddress(host: "0.0.0.0", port: 8080))
        #expect(try GatewayConfiguration.load(path: nil, environment: ["HOMEGATE_HTTP_LISTEN": "off"]).http.listen == nil)
    }

    @Test("a port another program holds stops homegate with a clear message instead of running without its API")
    func portInUse() async throws {
        let (holder, port) = try bindLoopback(port: 0, listen: 1)
        defer { close(holder) }
        let house = try await House(startGateway: false)
        defer { house.stop() }
        try house.startGateway(["HOMEGATE_HTTP_LISTEN": "127.0.0.1:\(port)"])
        var status: Int32 = 0
        waitpid(house.gateway, &status, 0)
        house.gateway = 0
        #expect(status != 0)
        #expect(house.gatewayLog.contains("http.listen 127.0.0.1:\(port): the address is in use"), "\(house.gatewayLog)")
    }

    @Test("SIGTERM with streams open: the event stream ends, a WebSocket is closed normally (1000), homegate exits cleanly")
    func stopWithStreamOpen() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let stream = try EventStreamReader("\(http.base)/api/events")
        try await stream.waitOpen()
        let socket = try WebSocketClient(base: http.base, path: "/api/events")
        defer { socket.disconnect() }
        try await streamClients(http, 2)
        kill(house.gateway, SIGTERM)
        var status: Int32 = 0
        waitpid(house.gateway, &status, 0)
        house.gateway = 0
        #expect(status == 0)
        try await stream.waitFor("curl to see the stream end") { $0.ended }
        try await socket.waitFor("the WebSocket to end") { $0.ended }
        #expect(socket.closed?.code == 1000, "\(String(describing: socket.closed))")
        #expect(house.gatewayLog.contains("shutting down: publishing offline and disconnecting"))
        #expect(!house.gatewayLog.contains("closing HTTP connections still open"), "\(house.gatewayLog)")
    }

    @Test(
        "WebSocket: every event as {event, data}, in order, filtered; a client that stops reading is closed (1008) once 1,000 events wait for it, and the others miss nothing"
    )
    func webSocketSlowClient() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let reader = try WebSocketClient(base: http.base, path: "/api/events?accessory=weather_sensor&characteristic=current_temperature")
        defer { reader.disconnect() }
        // A small receive buffer, so the connection is full after a few events and the rest wait in the gateway.
        let stuck = try WebSocketClient(base: http.base, path: "/api/events", receiveBuffer: 4096, reading: false)
        defer { stuck.disconnect() }
        try await streamClients(http, 2)

        // The stuck one starts reading once it is cut off, and finds the reason after its backlog.
        let readings = 3_000
        let cutAfter = try await flood(house, http, readings: readings, cutOff: stuck.resume) { count in
            try await reader.waitFor("the events of readings up to \(count)") { $0.messages.count >= count || $0.ended }
        }
        let values = reader.messages.map { (try? JSONValue(parsing: Array($0.utf8))) ?? .null }
        #expect(
            values.first?["event"] == "characteristic" && values.first?["data"]?["accessory"] == "weather_sensor", "\(reader.messages[0])")
        #expect(values.map { $0["data"]?["value"]?.doubleValue ?? -1 } == (0..<readings).map { Double($0 % 900) / 10 })
        #expect(reader.closed == nil)

        let cut = try #require(cutAfter, "the client that did not read was never cut off")
        try await stuck.waitFor("the stuck client to be closed") { $0.ended }
        #expect(stuck.closed == .init(code: 1008, reason: "fell 1000 events behind"), "\(String(describing: stuck.closed))")
        #expect(stuck.messages.count >= 1_000 && stuck.messages.count <= cut, "\(stuck.messages.count) of \(cut)")
        #expect(try await metric(http, "homegate_stream_clients") == 1)
        #expect(house.gatewayLog.contains("closed a WebSocket client of /api/events that fell 1000 events behind"), "\(house.gatewayLog)")
        #expect(house.gatewayIsRunning)
    }

    @Test(
        "Server-Sent Events: a client that stops reading is cut off once 1,000 events wait for it, told why after its backlog, counted and logged; the others miss nothing"
    )
    func serverSentEventsSlowClient() async throws {
        let house = try await House()
        defer { house.stop() }
        let http = try await house.http()
        let reader = try EventStreamReader("\(http.base)/api/events?accessory=weather_sensor&characteristic=current_temperature")
        try await reader.waitOpen()
        // A small receive buffer, so the connection is full after a few events and the rest wait in the gateway.
        let stuck = try RawEventStream(base: http.base, path: "/api/events", receiveBuffer: 4096, reading: false)
        defer { stuck.disconnect() }
        try await streamClients(http, 2)

        let readings = 3_000
        let cutAfter = try await flood(house, http, readings: readings, cutOff: stuck.resume) { count in
            try await reader.waitFor("the events of readings up to \(count)") { $0.events.count >= count }
        }
        #expect(reader.events.map { $0.json["value"]?.doubleValue ?? -1 } == (0..<readings).map { Double($0 % 900) / 10 })

        let cut = try #require(cutAfter, "the client that did not read was never cut off")
        try await stuck.waitFor("the stuck client's response to end") { $0.finished }
        let received = stuck.count("characteristic")
        #expect(received >= 1_000 && received <= cut, "\(received) of \(cut)")
        let text = stuck.text
        let reason = try #require(text.range(of: ": fell 1000 events behind; the stream ends here, connect again"), "\(text.suffix(400))")
        #expect(!text[reason.upperBound...].contains("event: "), "the reason comes after the last event")
        #expect(try await metric(http, "homegate_stream_clients") == 1)
        #expect(house.gatewayIsRunning)
        // The reader leaves as a closed tab does: that is no cut-off. The gateway finishes every
        // stream's task before it exits, so its log is whole once it has.
        reader.leave()
        // The gateway learns it has gone when a write to it fails, which takes a second write after
        // it left (the first only draws the reset): a reading at a time until it has.
        let deadline = ContinuousClock.now + .seconds(10)
        var value = 10.0
        while try await metric(http, "homegate_stream_clients") != 0 {
            guard ContinuousClock.now < deadline else { throw HarnessError("the gateway still counts the reader 10 s after it left") }
            value += 0.1
            try house.recorder.client.publish("zigbee2mqtt/weather_sensor", #"{"temperature":\#(value)}"#)
            try await Task.sleep(for: .milliseconds(100))
        }
        house.stopGateway()
        let cutOffs = house.gatewayLog.components(
            separatedBy: "closed a Server-Sent Events client of /api/events that fell 1000 events behind")
        #expect(cutOffs.count == 2, "one cut-off logged, not \(cutOffs.count - 1): \(house.gatewayLog)")
    }

    /// Publishes `readings` temperature readings in steps of 200, each step read by the reading
    /// client (`read` waits for that many) before the next, so it is never near 1,000 behind. Once
    /// the gateway counts a client cut off, `cutOff` runs; returns after how many readings that was.
    private func flood(
        _ house: House, _ http: HTTPClient, readings: Int, cutOff: () -> Void, read: (Int) async throws -> Void
    ) async throws -> Int? {
        var cutAfter: Int?
        for step in stride(from: 0, to: readings, by: 200) {
            for i in step..<(step + 200) {
                try house.recorder.client.publish("zigbee2mqtt/weather_sensor", #"{"temperature":\#(Double(i % 900) / 10)}"#)
            }
            try await read(step + 200)
            if cutAfter == nil, try await metric(http, "homegate_stream_clients_dropped_total") == 1 {
                cutAfter = step + 200
                cutOff()
            }
        }
        return cutAfter
    }

    /// Waits until the gateway counts `count` stream clients (an upgrade is answered before its client is subscribed).
    private func streamClients(_ http: HTTPClient, _ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try await metric(http, "homegate_stream_clients") != Double(count) {
            guard ContinuousClock.now < deadline else {
                throw HarnessError("the gateway did not count \(count) stream clients within 10 s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A value on `/metrics` now.
    private func metric(_ http: HTTPClient, _ name: String) async throws -> Double? {
        let line = try await http.get("/metrics").text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}
