import GatewayCore
import HomeModel
import JSON
import Matter

/// A covering's slats: Window Covering's Tilt and PositionAwareTilt features. HomeKit's tilt is an
/// angle from -90° to 90° (horizontal or vertical), Matter's hundredths of a percent closed; as the
/// house's Zigbee2MQTT mapping reads a blind's tilt percentage (0 closed, 100 open: -90° to 90°),
/// 90° is open (0) and -90° closed (10000).
enum Tilt {
    static let characteristics: Set<String> = [
        "current_horizontal_tilt_angle", "target_horizontal_tilt_angle", "current_vertical_tilt_angle", "target_vertical_tilt_angle",
    ]
    /// The target angles a GoToTiltPercentage may write, horizontal first.
    static let targets = ["target_horizontal_tilt_angle", "target_vertical_tilt_angle"]

    static func tilts(_ service: Service) -> Bool { characteristics.contains { service[$0] != nil } }

    static func closed100ths(degrees: Double) -> UInt64 { UInt64(min(10000, max(0, ((90 - degrees) * 10000 / 180).rounded()))) }
    static func degrees(closed100ths: Int) -> Int { Int((90 - Double(closed100ths) * 180 / 10000).rounded()) }

    /// Window Covering's AcceptedCommandList with tilt: UpOrOpen, DownOrClose, StopMotion,
    /// GoToLiftPercentage, GoToTiltPercentage (a covering without tilt has the node's list, without it).
    static let acceptedCommands = TLVValue.array([0x00, 0x01, 0x02, 0x05, 0x08].map { TLVElement(.unsigned($0)) })

    /// The tilt attributes, features and command added to the covering's cluster.
    static func add(to clusters: inout [UInt32: [UInt32: TLVValue]]) {
        guard var covering = clusters[Cluster.windowCovering] else { return }
        covering[0x000C] = covering[0x000C] ?? .null  // TargetPositionTiltPercent100ths
        covering[0x000F] = covering[0x000F] ?? .null  // CurrentPositionTiltPercent100ths
        covering[0x0000] = .unsigned(8)  // Type: tilt blind, lift and tilt
        covering[0x000D] = .unsigned(0x0A)  // EndProductType: interior blind
        covering[0x0007] = .unsigned((covering[0x0007]?.integer.map(UInt64.init) ?? 0x09) | 0x10)  // ConfigStatus: tilt position aware
        covering[0xFFFC] = .unsigned((covering[0xFFFC]?.integer.map(UInt64.init) ?? 0) | 0x02 | 0x10)  // Tilt, PositionAwareTilt
        covering[0xFFF9] = acceptedCommands
        clusters[Cluster.windowCovering] = covering
    }

    static func attributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, UInt32, TLVValue)] {
        guard let degrees = value.number else { return [] }
        return [(Cluster.windowCovering, characteristic.hasPrefix("current") ? 0x000F : 0x000C, .unsigned(closed100ths(degrees: degrees)))]
    }
}

extension BridgedEndpoint {
    /// GoToTiltPercentage {0: TiltPercent100thsValue}.
    func goToTilt(_ fields: TLVValue) -> Invoke {
        guard let tilt = Tilt.targets.first(where: { characteristics[$0] != nil }) else { return .refused(.unsupportedCommand) }
        guard let closed = fields[context: 0]?.integer, (0...10000).contains(closed) else { return .refused(.constraintError) }
        return .writes([write(tilt, .integer(Tilt.degrees(closed100ths: Int(closed))))])
    }
}
