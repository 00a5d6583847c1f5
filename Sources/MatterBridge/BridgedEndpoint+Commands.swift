import GatewayCore
import HomeModel
import JSON
import Matter

extension TLVValue {
    /// A signed or unsigned integer.
    var integer: Int64? {
        switch self {
        case .signed(let value): value
        case .unsigned(let value): Int64(exactly: value)
        default: nil
        }
    }
}

extension BridgedEndpoint {
    /// What an invoke comes to: the house's writes, or the status that refuses it.
    enum Invoke: Equatable {
        case writes([WriteRequest])
        case refused(InteractionStatus)
        /// A Move, stepped by `RampRunner` (see Ramp.swift).
        case ramp(Ramp)
        /// The accessory asked to show itself (`accessory/identify`).
        case identify(String)
    }

    /// The writes an invoke stands for, or the status that refuses it: checked as the house checks
    /// a write (the device reachable, each characteristic writable, numbers in its range), since the
    /// invoke is answered before the house has the write. Stop commands of lights change nothing
    /// (the house's writes take effect at once). A MoveTo or Step with a TransitionTime carries it
    /// in its writes, for the light to run.
    func writes(for path: CommandPath, fields: TLVValue) -> Invoke {
        let invoke = translate(path, fields: fields)
        guard case .writes(let requests) = invoke, let transition = Self.transition(path, fields) else { return checked(invoke) }
        return checked(.writes(requests.map { var request = $0; request.transition = transition; return request }))
    }

    /// The tag of a lighting command's TransitionTime (tenths of a second): its MoveTo and Step commands.
    static func transitionTag(_ path: CommandPath) -> UInt8? {
        switch (path.cluster, path.command) {
        case (Cluster.levelControl, 0), (Cluster.levelControl, 4): 1  // MoveToLevel, MoveToLevelWithOnOff
        case (Cluster.levelControl, 2), (Cluster.levelControl, 6): 2  // Step, StepWithOnOff
        case (Cluster.colorControl, 0x03), (Cluster.colorControl, 0x0A): 1  // MoveToSaturation, MoveToColorTemperature
        // MoveToHue, StepHue, StepSaturation, MoveToHueAndSaturation, MoveToColor, StepColor, StepColorTemperature
        case (Cluster.colorControl, 0x00), (Cluster.colorControl, 0x02), (Cluster.colorControl, 0x05), (Cluster.colorControl, 0x06),
            (Cluster.colorControl, 0x07), (Cluster.colorControl, 0x09), (Cluster.colorControl, 0x4C):
            2
        default: nil
        }
    }

    /// A command's TransitionTime as the house's transition, in seconds. Only a time above 0 is
    /// passed on: 0 (at once) and null leave the light's own default in place, Zigbee2MQTT's
    /// per-device `transition` option, which a controller's 0 on every command would undo.
    static func transition(_ path: CommandPath, _ fields: TLVValue) -> Double? {
        guard let tag = transitionTag(path), let tenths = fields[context: tag]?.integer, tenths > 0 else { return nil }
        let seconds = Double(tenths) / 10
        return WriteRequest.transitions.contains(seconds) ? seconds : nil
    }

    /// The writes an attribute write stands for (a thermostat's setpoint and mode), checked the same way.
    func writes(for path: AttributePath, value: TLVValue) -> Invoke {
        switch (device, path.cluster, path.attribute) {
        case (.climate(let climate), Cluster.thermostat, let attribute?): return climateWrite(climate, attribute, value)
        case (.fan(let fan), Cluster.fanControl, let attribute?):
            return checked(fanWrite(fan, attribute, value), notWritable: .unsupportedWrite)
        case (.doorLock, Cluster.doorLock, let attribute?): return lockWrite(attribute, value)
        case (.thermostat, Cluster.thermostat, 0x0012):  // OccupiedHeatingSetpoint, hundredths of °C
            guard let hundredths = value.integer else { return .refused(.constraintError) }
            return checked(.writes([write("target_temperature", .double(Double(hundredths) / 100))]), notWritable: .unsupportedWrite)
        case (.thermostat, Cluster.thermostat, 0x001C):  // SystemMode
            guard let mode = value.integer.flatMap({ SystemMode.homeKit(matter: Int($0)) }) else { return .refused(.constraintError) }
            guard characteristics["target_heating_cooling_state"]?.validValues?.contains(mode) ?? true else {
                return .refused(.constraintError)
            }
            return checked(.writes([write("target_heating_cooling_state", .integer(mode))]), notWritable: .unsupportedWrite)
        case (_, Cluster.identify, 0x0000):  // IdentifyTime
            return identifyTime(value)
        default:
            return .refused(.unsupportedWrite)
        }
    }

    /// The house's write of one of the endpoint's characteristics (or of another service of its
    /// accessory, such as a light's effect setting).
    func write(_ characteristic: String, _ value: JSONValue, service: String? = nil) -> WriteRequest {
        WriteRequest(accessory: accessory, service: service ?? self.service, characteristic: characteristic, value: value)
    }

    /// A characteristic's number as the house has it now.
    func value(_ characteristic: String) -> Double? { characteristics[characteristic]?.value?.number }

    func checked(_ invoke: Invoke, notWritable: InteractionStatus = .unsupportedCommand) -> Invoke {
        guard case .writes(let requests) = invoke, !requests.isEmpty else { return invoke }
        // No IM status says "device unreachable"; FAILURE is what bridges answer.
        guard reachable else { return .refused(.failure) }
        // A light's effect setting (another service of the accessory) is checked where it is made.
        for request in requests where request.service == service {
            guard let characteristic = characteristics[request.characteristic], characteristic.isWritable else {
                return .refused(notWritable)
            }
            if let number = request.value.doubleValue,
                number < (characteristic.minValue ?? -.infinity) || number > (characteristic.maxValue ?? .infinity)
            {
                return .refused(.constraintError)
            }
        }
        return invoke
    }

    private func translate(_ path: CommandPath, fields: TLVValue) -> Invoke {
        if case .climate(let climate) = device, path.cluster == Cluster.thermostat, path.command == 0 {
            return climateRaiseLower(climate, fields)  // SetpointRaiseLower
        }
        switch (path.cluster, path.command) {
        case (Cluster.doorLock, let command): return lockCommand(command)
        case (Cluster.fanControl, 0):
            guard case .fan(let fan) = device else { return .refused(.unsupportedCommand) }
            return fanStep(fan, fields)
        case (Cluster.windowCovering, 8): return goToTilt(fields)  // GoToTiltPercentage
        case (Cluster.onOff, 0): return .writes([write("on", .bool(false))])
        case (Cluster.onOff, 1): return .writes([write("on", .bool(true))])
        case (Cluster.onOff, 2):
            let on = characteristics["on"]?.value?.boolValue ?? false
            return .writes([write("on", .bool(!on))])
        case (Cluster.levelControl, 0), (Cluster.levelControl, 4):  // MoveToLevel, MoveToLevelWithOnOff
            guard characteristics["brightness"] != nil else { return .refused(.unsupportedCommand) }
            guard let level = try? fields.field(0, "Level", as: UInt8.self), level <= 254 else { return .refused(.constraintError) }
            let brightness = write("brightness", .integer(Int(PercentScale.percent(matter: Int(level)).rounded())))
            guard path.command == 4 else { return .writes([brightness]) }
            // With OnOff: the lowest level is off, any other on.
            return .writes(level <= 1 ? [write("on", .bool(false))] : [write("on", .bool(true)), brightness])
        case (Cluster.levelControl, 3), (Cluster.levelControl, 7), (Cluster.colorControl, 0x47):
            return .writes([])
        case (Cluster.colorControl, 0x0A):  // MoveToColorTemperature
            guard let range = device.colorTemperature else { return .refused(.unsupportedCommand) }
            guard let mireds = try? fields.field(0, "ColorTemperatureMireds", as: UInt16.self), range.contains(Int(mireds)) else {
                return .refused(.constraintError)
            }
            return .writes(colorTemperatureWrites(mireds: Int(mireds)))
        case (Cluster.thermostat, 0x00):  // SetpointRaiseLower {0: Mode, 1: Amount in tenths of °C}
            guard let mode = try? fields.field(0, "Mode", as: UInt8.self), mode <= 2, let amount = fields[context: 1]?.integer,
                let setpoint = self.value("target_temperature")
            else { return .refused(.constraintError) }
            guard mode != 1 else { return .refused(.constraintError) }  // cooling: a heating thermostat has none
            return .writes([write("target_temperature", .double(((setpoint * 10).rounded() + Double(amount)) / 10))])
        case (Cluster.windowCovering, 0): return .writes([write("target_position", .integer(100))])  // UpOrOpen
        case (Cluster.windowCovering, 1): return .writes([write("target_position", .integer(0))])  // DownOrClose
        case (Cluster.windowCovering, 2):  // StopMotion
            guard characteristics["hold_position"]?.isWritable == true else { return .refused(.unsupportedCommand) }
            return .writes([write("hold_position", .bool(true))])
        case (Cluster.windowCovering, 5):  // GoToLiftPercentage
            guard let closed = try? fields.field(0, "LiftPercent100thsValue", as: UInt16.self), closed <= 10000 else {
                return .refused(.constraintError)
            }
            return .writes([write("target_position", .integer(Lift.open(closed100ths: Int(closed))))])
        case (Cluster.levelControl, _), (Cluster.colorControl, _), (Cluster.identify, _):
            return lighting(path, fields: fields)
        default:
            return .refused(.unsupportedCommand)
        }
    }
}
