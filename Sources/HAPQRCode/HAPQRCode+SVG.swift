extension HAPQRCode {
    /// The code as a standalone SVG image: one module per user unit, dark modules as a single path
    /// on a white square with a quiet zone of `border` modules, crisp when scaled, and nothing but
    /// shapes (no scripts, no links, no text but its `title`).
    public func svg(border: Int = 4, title: String = "HomeKit setup code") -> String {
        let size = modules.count + 2 * border
        var path = ""
        for (row, line) in modules.enumerated() {
            var column = 0
            // Runs of dark modules in a row as one rectangle each.
            while column < line.count {
                guard line[column] else {
                    column += 1
                    continue
                }
                let start = column
                while column < line.count, line[column] { column += 1 }
                path += "M\(start + border) \(row + border)h\(column - start)v1h-\(column - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" width="\(size * 8)" height="\(size * 8)" \
            shape-rendering="crispEdges"><title>\(Self.escaped(title))</title>\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>

            """
    }

    private static func escaped(_ text: String) -> String {
        text.reduce(into: "") { escaped, character in
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
    }
}
