/// The tag of a Matter TLV element (Matter specification, appendix A.7).
public enum TLVTag: Sendable, Hashable, CustomStringConvertible {
    case anonymous
    /// A context-specific tag: meaningful inside its structure only.
    case context(UInt8)
    /// A tag of the Matter common profile (2 or 4 bytes on the wire).
    case commonProfile(UInt32)
    /// A tag of the implicit profile (2 or 4 bytes on the wire).
    case implicitProfile(UInt32)
    /// A fully qualified tag: vendor, profile and tag number.
    case fullyQualified(vendor: UInt16, profile: UInt16, tag: UInt32)

    public var description: String {
        switch self {
        case .anonymous: "anonymous"
        case .context(let n): "\(n)"
        case .commonProfile(let n): "common:\(n)"
        case .implicitProfile(let n): "implicit:\(n)"
        case .fullyQualified(let vendor, let profile, let tag): "\(vendor):\(profile):\(tag)"
        }
    }
}
