import GatewayCore
import HomeModel
import JSON
import Matter

/// A lock mechanism as Matter's Door Lock (cluster 0x0101, revision 7) with no features: no PIN,
/// no users, no schedules. LockDoor and UnlockDoor take no PIN (the optional PINCode field is
/// ignored: the house has no codes to check it against) and, as the specification marks them, must
/// come in a Timed Invoke (the node refuses them otherwise, see `ClusterID.timedCommands`).
extension BridgedDevice {
    /// Computed, not stored: LeakSanitizer takes a static of TLV values for a leak (the fuzzer stops on it).
    static var doorLockCluster: [UInt32: TLVValue] {
        [
            0x0000: .null,  // LockState: unknown until the lock reports
            0x0001: .unsigned(0),  // LockType: dead bolt
            0x0002: .bool(true),  // ActuatorEnabled
            0x0025: .unsigned(0),  // OperatingMode: normal
            0x0026: .unsigned(0xFFFE),  // SupportedOperatingModes: a bit clear is a mode supported; normal alone
            0xFFFC: .unsigned(0),
            0xFFFD: .unsigned(7),
        ]
    }

    /// HomeKit's lock_current_state (0 unsecured, 1 secured, 2 jammed, 3 unknown) as LockState
    /// (0 not fully locked, 1 locked, 2 unlocked; null unknown). Jammed and not fully locked are one
    /// state in the house's mapping: both are "not fully locked" here.
    static func lockState(homeKit: Int) -> TLVValue {
        switch homeKit {
        case 0: .unsigned(2)
        case 1: .unsigned(1)
        case 2: .unsigned(0)
        default: .null
        }
    }

    static func doorLockAttributes(_ characteristic: String, _ value: CharacteristicValue) -> [(UInt32, UInt32, TLVValue)] {
        guard characteristic == "lock_current_state", let state = value.number else { return [] }
        return [(Cluster.doorLock, 0x0000, lockState(homeKit: Int(state)))]
    }

    /// LockOperation (event 0x02) when the lock went from locked to unlocked or back:
    /// {0: LockOperationType (0 lock, 1 unlock), 1: OperationSource (0 unspecified: the house does
    /// not know who turned it), 2: UserIndex, 3: FabricIndex, 4: SourceNode (all null)}. Not from an
    /// unknown state (the first report after a restart) nor from jammed: nobody locked it then.
    func lockEvents(
        _ characteristic: String, _ value: CharacteristicValue, previous: CharacteristicValue?
    ) -> [(cluster: UInt32, event: UInt32, fields: [TLVElement])] {
        guard case .doorLock = self, characteristic == "lock_current_state", let state = value.number, state == 0 || state == 1,
            let before = previous?.number, before == 0 || before == 1, before != state
        else {
            return []
        }
        let fields = [
            TLVElement(.context(0), .unsigned(state == 1 ? 0 : 1)), TLVElement(.context(1), .unsigned(0)),
            TLVElement(.context(2), .null), TLVElement(.context(3), .null), TLVElement(.context(4), .null),
        ]
        return [(Cluster.doorLock, 0x02, fields)]
    }
}

extension BridgedEndpoint {
    /// LockDoor (0) and UnlockDoor (1): the lock's target state.
    func lockCommand(_ command: UInt32) -> Invoke {
        guard case .doorLock = device, command <= 1 else { return .refused(.unsupportedCommand) }
        return .writes([write("lock_target_state", .integer(command == 0 ? 1 : 0))])
    }

    /// OperatingMode: normal is the one mode the bridge offers; writing it changes nothing.
    func lockWrite(_ attribute: UInt32, _ value: TLVValue) -> Invoke {
        guard attribute == 0x0025 else { return .refused(.unsupportedWrite) }
        return value.integer == 0 ? .writes([]) : .refused(.constraintError)
    }
}
