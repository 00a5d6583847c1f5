public import HomeModel

/// The accessories as they are now, and their values: the tree, a write, a read from the device.
public enum ValueCommand: Sendable {
    /// The whole tree, with values as they are now.
    case tree
    /// Checked against the model, then sent: one coalesced write per device. The changes it
    /// brings are credited to `source` (`api` for MQTT and HTTP, `hap` for HomeKit controllers).
    case write([WriteRequest], source: ChangeSource = .api)
    /// Asks the device; the reply comes when it reports (or after 3 s with the last known value).
    case read(CharacteristicPath)

    /// Values are the devices', not stored with the home: nothing waits for a commit.
    public var changesHome: Bool {
        switch self {
        case .tree, .write, .read: false
        }
    }
}
