/// One problem in a mapping file, where it is and what was expected.
public struct Diagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `mappings/lights.yaml:12:7: brightness scale 'from' needs two numbers`.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}
