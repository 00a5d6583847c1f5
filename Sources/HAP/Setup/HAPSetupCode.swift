/// The eight-digit code a person types or scans, `XXX-XX-XXX`.
public struct HAPSetupCode: Sendable, Hashable, CustomStringConvertible {
    /// The eight digits without dashes.
    public let digits: String

    /// Codes the HAP specification forbids: all digits alike, and the two runs.
    static let trivial: Set<String> =
        Set((0...9).map { String(repeating: String($0), count: 8) }).union(["12345678", "87654321"])

    /// Reads "031-45-154" (or "03145154").
    public init(_ text: String) throws(HAPError) {
        let digits = text.filter { $0 != "-" }
        let dashed = text.count == 10 && Array(text)[3] == "-" && Array(text)[6] == "-"
        guard digits.count == 8, digits.allSatisfy({ $0.isASCII && $0.isNumber }), dashed || text.count == 8 else {
            throw .invalidSetupCode("'\(text)' is not eight digits written XXX-XX-XXX")
        }
        guard !HAPSetupCode.trivial.contains(digits) else {
            throw .invalidSetupCode("\(text) is too easy to guess; HomeKit refuses it")
        }
        self.digits = digits
    }

    /// A random code that is not trivial.
    public static func random() -> HAPSetupCode {
        var generator = SystemRandomNumberGenerator()
        while true {
            let digits = String((0..<8).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            if let code = try? HAPSetupCode(digits) { return code }
        }
    }

    /// `XXX-XX-XXX`, what SRP takes as the password.
    public var description: String {
        let characters = Array(digits)
        return String(characters[0..<3]) + "-" + String(characters[3..<5]) + "-" + String(characters[5..<8])
    }

    var number: UInt64 { UInt64(digits) ?? 0 }
}
