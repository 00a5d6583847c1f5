/// homegate's release: the one place it is written. `homegate --version`, the HomeKit bridge's
/// FirmwareRevision and the health report read it; a test checks it against CHANGELOG.md's latest
/// release heading, so a release bumps both together.
public enum HomegateVersion {
    public static let number = "0.7.0"
}
