import GatewayCore
import HomeModel
import JSON
import Matter
import Synchronization
import Testing

@testable import MatterBridge

@Suite("lights: Extended Color Light, Move and Step, Identify")
struct LightTests {
    static func writable(_ characteristic: Characteristic) -> Characteristic {
        var characteristic = characteristic
        characteristic.isWritable = true
        return characteristic
    }

    /// A colour bulb as the Zigbee2MQTT mapping makes bulb_color_2, with its `effect` setting.
    static func colorBulb(on: Bool = true, hue: Int = 120, saturation: Int = 100, mireds: Int = 300) -> Accessory {
        Accessory(
            id: "bulb_color", name: "Colour Bulb",
            services: [
                Service(
                    id: "lightbulb", type: .lightbulb,
                    characteristics: [
                        Characteristic(.on, value: .bool(on)), Characteristic(.brightness, value: .int(50)),
                        Characteristic(.color_temperature, value: .int(mireds), minValue: 150, maxValue: 500),
                        Characteristic(.hue, value: .float(Double(hue))), Characteristic(.saturation, value: .float(Double(saturation))),
                    ]),
                Service(
                    id: "settings", type: .settings,
                    characteristics: [
                        Characteristic(
                            .custom("effect", format: .string, readable: false, writable: true),
                            choices: ["blink", "breathe", "okay", "none"])
                    ]),
            ])
    }

    static func endpoint(_ accessory: Accessory) throws -> (BridgedEndpoint, [UInt32: DataModel.Cluster]) {
        var map = EndpointMap()
        let layout = EndpointLayout.build(LayoutTests.house([accessory]), selection: .everything, map: &map)
        return (try #require(layout.endpoints[2]), try #require(layout.clusters[2]))
    }

    static func write(_ name: String, _ value: JSONValue, service: String = "lightbulb") -> WriteRequest {
        WriteRequest(accessory: "bulb_color", service: service, characteristic: name, value: value)
    }

    static func fields(_ values: TLVValue...) -> TLVValue {
        .structure(values.enumerated().map { TLVElement(.context(UInt8($0.offset)), $0.element) })
    }

    static func path(_ cluster: UInt32, _ command: UInt32) -> CommandPath { CommandPath(endpoint: 2, cluster: cluster, command: command) }

    @Test("a bulb with hue and saturation is an Extended Color Light with hue/saturation, XY and colour temperature")
    func extendedColorLight() throws {
        let (bulb, clusters) = try Self.endpoint(Self.colorBulb())
        #expect(bulb.device == .colorLight(colorTemperature: 150...500))
        #expect(bulb.device.deviceType.type == 0x010D)
        let color = try #require(clusters[Cluster.colorControl]?.attributes)
        #expect(color[0x400A] == .unsigned(0x19) && color[0xFFFC] == .unsigned(0x19))  // HS, XY, CT
        #expect(color[0x0000] == .unsigned(85) && color[0x0001] == .unsigned(254))  // 120° green, full
        #expect(color[0x0008] == .unsigned(0) && color[0x4001] == .unsigned(0))  // hue/saturation mode
        #expect(color[0x0007] == .unsigned(300) && color[0x400B] == .unsigned(150) && color[0x400C] == .unsigned(500))
        #expect(color[0x0003] == .unsigned(UInt64(ColorScale.matter(ColorState(hue: 120, saturation: 100, mireds: 300).xy.x))))
        #expect(clusters[Cluster.identify]?.attributes[0x0001] == .unsigned(1))  // light output
        #expect(bulb.effect == EffectSetting(service: "settings", choices: ["blink", "breathe", "okay", "none"]))
        // Without colour temperature of its own: the CT the device type requires, 153–500 mireds,
        // a colour temperature written as the hue and saturation of its white.
        let noWhite = Accessory(
            id: "strip", name: "Strip",
            services: [
                Service(
                    id: "lightbulb", type: .lightbulb,
                    characteristics: [
                        Characteristic(.on), Characteristic(.brightness), Characteristic(.hue, value: .int(0)),
                        Characteristic(.saturation, value: .int(0)),
                    ])
            ])
        let (stripEndpoint, stripClusters) = try Self.endpoint(noWhite)
        let strip = stripClusters[Cluster.colorControl]?.attributes
        #expect(stripEndpoint.device.deviceType.type == 0x010D)
        #expect(strip?[0x400A] == .unsigned(0x19) && strip?[0xFFFC] == .unsigned(0x19))
        #expect(strip?[0x0007] == .unsigned(153) && strip?[0x400B] == .unsigned(153) && strip?[0x400C] == .unsigned(500))
        #expect(strip?[0x0008] == .unsigned(0))  // hue/saturation mode
        #expect(strip?[0xFFF9] == BridgedDevice.acceptedColorCommands(hueSaturation: true, colorTemperature: true))
        var writable = stripEndpoint
        for name in ["hue", "saturation"] { writable.characteristics[name]?.isWritable = true }
        let white = ColorState.white(mireds: 370)
        let toWhite = writable.writes(for: Self.path(Cluster.colorControl, 0x0A), fields: Self.fields(.unsigned(370), .unsigned(0)))
        #expect(
            toWhite
                == .writes([
                    WriteRequest(accessory: "strip", service: "lightbulb", characteristic: "hue", value: .integer(white.hue)),
                    WriteRequest(accessory: "strip", service: "lightbulb", characteristic: "saturation", value: .integer(white.saturation)),
                ]))
        let outside = writable.writes(for: Self.path(Cluster.colorControl, 0x0A), fields: Self.fields(.unsigned(600), .unsigned(0)))
        #expect(outside == .refused(.constraintError))
        // A colour-temperature light keeps its type, now with Identify.
        let (_, lamp) = try Self.endpoint(LayoutTests.lamp)
        #expect(lamp[Cluster.identify] != nil && lamp[Cluster.colorControl]?.attributes[0xFFF9]?.members?.count == 4)
    }

    @Test("ColorMode follows the last kind of change: the white of a colour temperature is CT mode, a colour HS")
    func colorMode() throws {
        var (bulb, _) = try Self.endpoint(Self.colorBulb())
        func change(_ name: String, _ value: CharacteristicValue) -> [UInt32: TLVValue] {
            bulb.characteristics[name]?.value = value
            return Dictionary(bulb.attributes(name, value).map { ($0.1, $0.2) }, uniquingKeysWith: { _, last in last })
        }
        // What the mapping reports in `color_temp` mode: the temperature, then its white as hue and saturation.
        #expect(change("color_temperature", .int(370))[0x0007] == .unsigned(370))
        let hs = ColorState.white(mireds: 370)
        _ = change("hue", .float(Double(hs.hue)))
        let last = change("saturation", .float(Double(hs.saturation)))
        #expect(last[0x0008] == .unsigned(2) && last[0x4001] == .unsigned(2))
        #expect(last[0x0001] == .unsigned(UInt64(PercentScale.matter(percent: Double(hs.saturation)))))
        // A colour: hue/saturation mode, CurrentX/CurrentY from it.
        let red = change("hue", .float(0))
        #expect(red[0x0008] == .unsigned(0) && red[0x0000] == .unsigned(0))
        #expect(
            red[0x0003] == .unsigned(UInt64(ColorScale.matter(ColorState(hue: 0, saturation: Double(hs.saturation), mireds: 370).xy.x))))
    }

    @Test("hue, saturation and XY commands are the house's hue and saturation writes, one /set for both")
    func colorCommands() throws {
        let (bulb, _) = try Self.endpoint(Self.colorBulb())
        let color = { (command: UInt32, fields: TLVValue) in bulb.writes(for: Self.path(Cluster.colorControl, command), fields: fields) }
        let zero = TLVValue.unsigned(0)
        #expect(color(0x00, Self.fields(.unsigned(127), zero, zero, zero, zero)) == .writes([Self.write("hue", .integer(180))]))
        #expect(color(0x03, Self.fields(.unsigned(127), zero, zero, zero)) == .writes([Self.write("saturation", .integer(50))]))
        #expect(
            color(0x06, Self.fields(.unsigned(0), .unsigned(254), zero, zero, zero))
                == .writes([Self.write("hue", .integer(0)), Self.write("saturation", .integer(100))]))
        #expect(color(0x00, Self.fields(.unsigned(255), zero, zero, zero, zero)) == .refused(.constraintError))
        // MoveToColor: red's x and y come back as hue 0 and a full saturation.
        let red = ColorState(hue: 0, saturation: 100, mireds: nil).xy
        #expect(
            color(
                0x07,
                Self.fields(.unsigned(UInt64(ColorScale.matter(red.x))), .unsigned(UInt64(ColorScale.matter(red.y))), zero, zero, zero))
                == .writes([Self.write("hue", .integer(0)), Self.write("saturation", .integer(100))]))
        // Steps are jumps from the house's value: hue wraps, saturation stops at its end.
        #expect(color(0x02, Self.fields(.unsigned(3), .unsigned(127), zero, zero, zero)) == .writes([Self.write("hue", .integer(300))]))
        #expect(
            color(0x05, Self.fields(.unsigned(1), .unsigned(50), zero, zero, zero)) == .writes([Self.write("saturation", .integer(100))]))
        // Colour temperature: a step within the bulb's range and the command's.
        #expect(
            color(0x4C, Self.fields(.unsigned(1), .unsigned(50), zero, zero, .unsigned(320), zero, zero))
                == .writes([Self.write("color_temperature", .integer(320))]))
        #expect(
            color(0x4C, Self.fields(.unsigned(3), .unsigned(500), zero, zero, zero, zero, zero))
                == .writes([Self.write("color_temperature", .integer(150))]))
        #expect(color(0x0A, Self.fields(.unsigned(400), zero, zero, zero)) == .writes([Self.write("color_temperature", .integer(400))]))
        // A light without colour refuses hue commands.
        let (lamp, _) = try Self.endpoint(LayoutTests.lamp)
        #expect(
            lamp.writes(for: CommandPath(endpoint: 2, cluster: Cluster.colorControl, command: 0x00), fields: Self.fields(zero))
                == .refused(.unsupportedCommand))
    }

    @Test("a MoveTo or Step's TransitionTime above 0 goes with its writes, in seconds; 0 and null leave the light's own")
    func transitions() throws {
        let (bulb, _) = try Self.endpoint(Self.colorBulb())
        func invoke(_ cluster: UInt32, _ command: UInt32, _ fields: TLVValue...) -> BridgedEndpoint.Invoke {
            let structure = TLVValue.structure(fields.enumerated().map { TLVElement(.context(UInt8($0.offset)), $0.element) })
            return bulb.writes(for: Self.path(cluster, command), fields: structure)
        }
        func slow(_ name: String, _ value: JSONValue, _ seconds: Double) -> WriteRequest {
            var write = Self.write(name, value)
            write.transition = seconds
            return write
        }
        let zero = TLVValue.unsigned(0)
        // MoveToLevelWithOnOff {Level, TransitionTime, …}: both writes of the one /set carry it.
        #expect(
            invoke(Cluster.levelControl, 4, .unsigned(127), .unsigned(25), zero, zero)
                == .writes([slow("on", .bool(true), 2.5), slow("brightness", .integer(50), 2.5)]))
        #expect(invoke(Cluster.levelControl, 0, .unsigned(127), zero, zero, zero) == .writes([Self.write("brightness", .integer(50))]))
        #expect(invoke(Cluster.levelControl, 0, .unsigned(127), .null, zero, zero) == .writes([Self.write("brightness", .integer(50))]))
        #expect(
            invoke(Cluster.levelControl, 2, zero, .unsigned(64), .unsigned(10), zero, zero)
                == .writes([slow("brightness", .integer(75), 1)]))
        // ColorControl: MoveToHue {Hue, Direction, TransitionTime}, MoveToSaturation {Saturation, TransitionTime},
        // MoveToColorTemperature {Mireds, TransitionTime}, StepColorTemperature {Mode, Size, TransitionTime, …}.
        #expect(
            invoke(Cluster.colorControl, 0x00, .unsigned(127), zero, .unsigned(3), zero, zero)
                == .writes([slow("hue", .integer(180), 0.3)]))
        #expect(
            invoke(Cluster.colorControl, 0x03, .unsigned(127), .unsigned(600), zero, zero)
                == .writes([slow("saturation", .integer(50), 60)]))
        #expect(
            invoke(Cluster.colorControl, 0x0A, .unsigned(400), .unsigned(65535), zero, zero)
                == .writes([slow("color_temperature", .integer(400), 6553.5)]))
        #expect(
            invoke(Cluster.colorControl, 0x4C, .unsigned(1), .unsigned(50), .unsigned(5), zero, .unsigned(320), zero, zero)
                == .writes([slow("color_temperature", .integer(320), 0.5)]))
        // Every MoveTo and Step command's TransitionTime field (Matter 1.3, LevelControl 1.6 and ColorControl 3.2).
        let tags: [(cluster: UInt32, command: UInt32, tag: UInt8)] = [
            (Cluster.levelControl, 0x00, 1), (Cluster.levelControl, 0x02, 2), (Cluster.levelControl, 0x04, 1),
            (Cluster.levelControl, 0x06, 2), (Cluster.colorControl, 0x00, 2), (Cluster.colorControl, 0x02, 2),
            (Cluster.colorControl, 0x03, 1), (Cluster.colorControl, 0x05, 2), (Cluster.colorControl, 0x06, 2),
            (Cluster.colorControl, 0x07, 2), (Cluster.colorControl, 0x09, 2), (Cluster.colorControl, 0x0A, 1),
            (Cluster.colorControl, 0x4C, 2),
        ]
        for (cluster, command, tag) in tags {
            let fields = TLVValue.structure((0...6).map { TLVElement(.context($0), .unsigned($0 == tag ? 42 : 7)) })
            #expect(BridgedEndpoint.transition(Self.path(cluster, command), fields) == 4.2, "cluster \(cluster) command \(command)")
        }
        // Moves and Stops have none (their fields at the same places are rates and options).
        #expect(BridgedEndpoint.transition(Self.path(Cluster.levelControl, 0x01), Self.fields(zero, .unsigned(42))) == nil)
        #expect(BridgedEndpoint.transition(Self.path(Cluster.colorControl, 0x4B), Self.fields(zero, zero, .unsigned(42))) == nil)
        // A refusal stays one, whatever its transition.
        #expect(invoke(Cluster.colorControl, 0x00, .unsigned(255), zero, .unsigned(3), zero, zero) == .refused(.constraintError))
    }

    @Test("Step is a jump, WithOnOff switching on going up and off at the bottom; an off light ignores plain Move and Step")
    func levelSteps() throws {
        let (bulb, _) = try Self.endpoint(Self.colorBulb())
        let level = { (command: UInt32, fields: TLVValue) in bulb.writes(for: Self.path(Cluster.levelControl, command), fields: fields) }
        let zero = TLVValue.unsigned(0)
        // 50 % is level 127; 127 + 64 = 191 is 75 %.
        #expect(level(2, Self.fields(zero, .unsigned(64), .null, zero, zero)) == .writes([Self.write("brightness", .integer(75))]))
        #expect(level(6, Self.fields(.unsigned(1), .unsigned(200), .null, zero, zero)) == .writes([Self.write("on", .bool(false))]))
        let (off, _) = try Self.endpoint(Self.colorBulb(on: false))
        let offLevel = { (command: UInt32, fields: TLVValue) in off.writes(for: Self.path(Cluster.levelControl, command), fields: fields) }
        #expect(offLevel(2, Self.fields(zero, .unsigned(64), .null, zero, zero)) == .writes([]))  // ignored while off
        #expect(offLevel(2, Self.fields(zero, .unsigned(64), .null, .unsigned(1), .unsigned(1))) != .writes([]))  // ExecuteIfOff
        #expect(
            offLevel(6, Self.fields(zero, .unsigned(64), .null, zero, zero))
                == .writes([Self.write("on", .bool(true)), Self.write("brightness", .integer(26))]))  // from the lowest: level 65
        #expect(offLevel(1, Self.fields(zero, .unsigned(10), zero, zero)) == .writes([]))
        #expect(offLevel(5, Self.fields(.unsigned(1), .unsigned(10), zero, zero)) == .writes([]))  // down to off: it is off
        #expect(offLevel(6, Self.fields(.unsigned(1), .unsigned(10), .null, zero, zero)) == .writes([]))
        guard case .ramp(let ramp) = offLevel(5, Self.fields(zero, .unsigned(127), zero, zero)) else {
            Issue.record("MoveWithOnOff is a ramp")
            return
        }
        #expect(ramp.first == [Self.write("on", .bool(true))] && ramp.from == [1] && ramp.range == 1...100)
    }

    @Test("a Move ramps at its rate, a step every 250 ms at most and only when it changes, until its end, a Stop or another command")
    func moves() async throws {
        let (bulb, _) = try Self.endpoint(Self.colorBulb())
        let (commands, continuation) = AsyncStream.makeStream(of: QueuedCommand.self)
        var queued = commands.makeAsyncIterator()
        let runner = RampRunner(commands: continuation, endpoint: { _ in bulb })
        let start = ContinuousClock.now
        func invoke(_ cluster: UInt32, _ command: UInt32, _ fields: TLVValue, at seconds: Double) -> InteractionStatus {
            let path = Self.path(cluster, command)
            return runner.handle(path, bulb.writes(for: path, fields: fields), on: bulb, now: start + .seconds(seconds))
        }
        func next() async -> [WriteRequest] {
            guard case .values(.write(let requests, _))? = await queued.next()?.command else { return [] }
            return requests
        }
        let zero = TLVValue.unsigned(0)
        // Move up at 127 levels a second: from 50 % to 100 % in one second.
        #expect(invoke(Cluster.levelControl, 1, Self.fields(zero, .unsigned(127), zero, zero), at: 0) == .success)
        runner.tick(now: start + .milliseconds(500))
        #expect(await next() == [Self.write("brightness", .integer(75))])
        runner.tick(now: start + .milliseconds(500))  // nothing new: nothing queued
        runner.tick(now: start + .seconds(2))
        #expect(await next() == [Self.write("brightness", .integer(100))])
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.levelControl))  // it reached the top
        // A Move ended by Stop: the Stop's own (empty) writes, and no step after it.
        _ = invoke(Cluster.colorControl, 0x4B, Self.fields(.unsigned(1), .unsigned(100), zero, zero, zero, zero), at: 10)
        runner.tick(now: start + .seconds(10.5))
        #expect(await next() == [Self.write("color_temperature", .integer(350))])
        #expect(invoke(Cluster.colorControl, 0x47, Self.fields(zero, zero), at: 10.6) == .success)
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.colorControl))
        // Any other command of the cluster ends it too, and goes out after the steps before it.
        _ = invoke(Cluster.colorControl, 0x01, Self.fields(.unsigned(1), .unsigned(254), zero, zero), at: 20)  // a turn a second
        runner.tick(now: start + .seconds(20.25))
        #expect(await next() == [Self.write("hue", .integer(210))])  // 120° + 90°
        _ = invoke(Cluster.colorControl, 0x03, Self.fields(.unsigned(254), zero, zero, zero), at: 20.3)
        #expect(await next() == [Self.write("saturation", .integer(100))])
        runner.tick(now: start + .seconds(20.5))
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.colorControl))
        // An Off ends a level Move: a step after it would switch the light back on.
        _ = invoke(Cluster.levelControl, 1, Self.fields(.unsigned(1), .unsigned(10), zero, zero), at: 30)
        _ = invoke(Cluster.onOff, 0, .structure([]), at: 30.1)
        #expect(await next() == [Self.write("on", .bool(false))])
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.levelControl))
        // A hue Move ends after one full turn.
        let hue = Ramp(quantity: .hue, from: [120], perSecond: [90], range: 0...360)
        #expect(hue.values(after: 1).values == [210] && !hue.values(after: 1).ended && hue.values(after: 4).ended)
        continuation.finish()
    }

    @Test("Identify asks the device to show itself; TriggerEffect plays the light's effect of that name")
    func identify() throws {
        let (bulb, _) = try Self.endpoint(Self.colorBulb())
        let identify = { (command: UInt32, fields: TLVValue) in bulb.writes(for: Self.path(Cluster.identify, command), fields: fields) }
        #expect(identify(0x00, Self.fields(.unsigned(5))) == .identify("bulb_color"))
        #expect(identify(0x00, Self.fields(.unsigned(0))) == .writes([]))
        #expect(
            identify(0x40, Self.fields(.unsigned(1), .unsigned(0)))
                == .writes([Self.write("effect", .string("breathe"), service: "settings")]))
        #expect(identify(0x40, Self.fields(.unsigned(0x0B), .unsigned(0))) == .identify("bulb_color"))  // no channel_change here
        #expect(identify(0x40, Self.fields(.unsigned(0xFF), .unsigned(0))) == .writes([]))  // nothing to stop
        #expect(identify(0x40, Self.fields(.unsigned(7), .unsigned(0))) == .refused(.constraintError))
        let time = AttributePath(endpoint: 2, cluster: Cluster.identify, attribute: 0)
        #expect(bulb.writes(for: time, value: .unsigned(10)) == .identify("bulb_color"))
        var away = bulb
        away.reachable = false
        #expect(away.writes(for: Self.path(Cluster.identify, 0x40), fields: Self.fields(.unsigned(0), .unsigned(0))) == .refused(.failure))
    }

    @Test("brightness and saturation on Matter's 0–254 by one scale: a level is at least 1, both clamped, no trap on infinity")
    func percentScale() {
        #expect(PercentScale.matter(percent: 50) == 127 && PercentScale.matter(percent: 0) == 0)
        #expect(PercentScale.matter(percent: 0, lowest: 1) == 1 && PercentScale.matter(percent: 120) == 254)
        #expect(PercentScale.matter(percent: .infinity) == 254 && PercentScale.matter(percent: -.infinity, lowest: 1) == 1)
        #expect(PercentScale.percent(matter: 254) == 100 && PercentScale.percent(matter: 300) == 100)
        #expect(PercentScale.percent(matter: -1) == 0)
        #expect(Int(PercentScale.percent(matter: 127).rounded()) == 50)
    }

    @Test("odd ranges are no crash: a colour temperature range with no whole mired in it, a brightness whose maximum is below 1 %")
    func oddRanges() throws {
        let narrow = Service(
            id: "lightbulb", type: .lightbulb,
            characteristics: [Characteristic(.on), Characteristic(.color_temperature, value: .int(153), minValue: 153.4, maxValue: 153.6)])
        #expect(BridgedDevice(narrow) == .light(dimmable: false, colorTemperature: nil))
        #expect(BridgedDevice.colorTemperatureRange(narrow) == nil)
        var (bulb, _) = try Self.endpoint(Self.colorBulb())
        bulb.characteristics["brightness"]?.maxValue = 0.5
        let zero = TLVValue.unsigned(0)
        let move = bulb.writes(for: Self.path(Cluster.levelControl, 1), fields: Self.fields(zero, .unsigned(10), zero, zero))
        #expect(move == .refused(.constraintError))
    }

    @Test("a Move follows its device: it ends when the device is unreachable or gone, and after 5 minutes at most")
    func movesFollowTheDevice() async throws {
        let (bulb, _) = try Self.endpoint(Self.colorBulb())
        let current = Mutex<BridgedEndpoint?>(bulb)
        let (commands, continuation) = AsyncStream.makeStream(of: QueuedCommand.self)
        var queued = commands.makeAsyncIterator()
        let runner = RampRunner(commands: continuation, endpoint: { _ in current.withLock { $0 } })
        let start = ContinuousClock.now
        let zero = TLVValue.unsigned(0)
        func move(at seconds: Double) {
            // Saturation down at 1 unit a second: 100 % to 0 % in 254 s.
            let path = Self.path(Cluster.colorControl, 0x04)
            let fields = Self.fields(.unsigned(3), .unsigned(1), zero, zero)
            #expect(runner.handle(path, bulb.writes(for: path, fields: fields), on: bulb, now: start + .seconds(seconds)) == .success)
        }
        move(at: 0)
        runner.tick(now: start + .seconds(10))
        let step = await queued.next()
        #expect(step?.move != nil)
        guard case .values(.write(let requests, _))? = step?.command else { throw MoveMissing() }
        #expect(requests == [Self.write("saturation", .integer(96))])
        // Unreachable: ended, nothing written.
        current.withLock { $0?.reachable = false }
        runner.tick(now: start + .seconds(20))
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.colorControl))
        // Gone from the layout: ended too.
        current.withLock { $0 = bulb }
        move(at: 30)
        current.withLock { $0 = nil }
        runner.tick(now: start + .seconds(40))
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.colorControl))
        // A MoveColor at 1/65536 a second would run for hours: it ends after `longestMove`.
        current.withLock { $0 = bulb }
        let path = Self.path(Cluster.colorControl, 0x08)
        let slow = bulb.writes(for: path, fields: Self.fields(.signed(1), .signed(0), zero, zero))
        #expect(runner.handle(path, slow, on: bulb, now: start + .seconds(50)) == .success)
        runner.tick(now: start + .seconds(50) + RampRunner.longestMove - .seconds(1))
        #expect(runner.isMoving(endpoint: 2, cluster: Cluster.colorControl))
        runner.tick(now: start + .seconds(50) + RampRunner.longestMove)
        #expect(!runner.isMoving(endpoint: 2, cluster: Cluster.colorControl))
    }

    struct MoveMissing: Error {}
}
