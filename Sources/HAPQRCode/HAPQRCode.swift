import CQREncode

/// A QR code of the `X-HM://` setup URI for a terminal, drawn with Unicode half blocks (two rows
/// of modules per line), dark modules on a light background as scanners expect.
public struct HAPQRCode: Sendable {
    /// Rows of modules, true for dark.
    public let modules: [[Bool]]

    /// Encodes the text with libqrencode (error correction level M); nil if it cannot.
    public init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        modules = (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// The code with a quiet zone of `border` modules, as text for a terminal.
    public func terminalText(border: Int = 2) -> String {
        let width = modules.count + 2 * border
        let dark = { (row: Int, column: Int) -> Bool in
            let r = row - border, c = column - border
            guard r >= 0, c >= 0, r < modules.count, c < modules.count else { return false }
            return modules[r][c]
        }
        var lines: [String] = []
        // Light is drawn as a block (the terminal's foreground), dark as a space.
        for row in stride(from: 0, to: width, by: 2) {
            var line = ""
            for column in 0..<width {
                let top = !dark(row, column), bottom = row + 1 < width ? !dark(row + 1, column) : true
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
