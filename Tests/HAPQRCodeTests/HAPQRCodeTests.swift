import HAPQRCode
import Testing

@Suite("Setup QR code")
struct HAPQRCodeTests {
    @Test("a setup URI becomes a version 1 or 2 code with its finder patterns")
    func encodes() throws {
        let code = try #require(HAPQRCode("X-HM://0023ISYWY8H2B"))
        #expect(code.modules.count == 21 || code.modules.count == 25)
        // The top-left finder pattern: a dark 7×7 ring around a light ring around a dark 3×3.
        #expect(code.modules[0][0...6].allSatisfy { $0 })
        #expect(code.modules[1][1...5].allSatisfy { !$0 })
        #expect(code.modules[3][2...4].allSatisfy { $0 })
    }

    @Test("the terminal text has one line per two rows, all the same width")
    func terminalText() throws {
        let code = try #require(HAPQRCode("X-HM://0023ISYWY8H2B"))
        let lines = code.terminalText(border: 2).split(separator: "\n")
        let width = code.modules.count + 4
        #expect(lines.count == (width + 1) / 2)
        #expect(lines.allSatisfy { $0.count == width })
        #expect(lines[0].allSatisfy { $0 == "█" })
    }
}

@Suite("Setup QR code as SVG")
struct HAPQRCodeSVGTests {
    @Test("the SVG is a square with a quiet zone, crisp edges, one path, and no script")
    func svg() throws {
        let code = try #require(HAPQRCode("X-HM://0023ISYWY8H2B"))
        let svg = code.svg(border: 4)
        let size = code.modules.count + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.ranges(of: "<path").count == 1)
        #expect(!svg.lowercased().contains("script") && !svg.contains("href"))
        // The top-left finder pattern's first row: 7 dark modules from (4, 4).
        #expect(svg.contains("d=\"M4 4h7v1h-7z"))
    }
}
