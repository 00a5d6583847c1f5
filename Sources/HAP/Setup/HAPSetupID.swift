/// The four characters [0-9A-Z] at the end of the setup URI; with the device id they make `sh`.
public struct HAPSetupID: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    public init(_ text: String) throws(HAPError) {
        guard text.count == 4, text.allSatisfy({ HAPSetupID.alphabet.contains($0) }) else {
            throw .invalidSetupID("'\(text)' is not four characters of 0-9 and A-Z")
        }
        description = text
    }

    public static func random() -> HAPSetupID {
        var generator = SystemRandomNumberGenerator()
        let text = String((0..<4).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        return (try? HAPSetupID(text)) ?? HAPSetupID(unchecked: "0000")
    }

    private init(unchecked: String) {
        description = unchecked
    }
}
