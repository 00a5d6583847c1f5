/// A password, token or key. It prints as `<redacted>` however it is shown (interpolation,
/// `debugDescription`, `dump`, a logger's metadata, a dump of the struct that holds it), so no
/// log line can carry it; `reveal` is the one way to the text, for the call that needs it.
public struct Secret: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral text: String) { self.text = text }

    public var reveal: String { text }
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
