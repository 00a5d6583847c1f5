import Foundation
import FuzzTargets
import Gateway
import Testing

@Suite("Fuzzing: every seed and every crash the fuzzer found goes through its parser again")
struct FuzzReplayTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The target's files under `Fuzz/<folder>/<target>/`, sorted; none when the folder is missing.
    static func files(_ folder: String, _ target: FuzzTarget) -> [URL] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(
        "Each corpus file and each crash found parses or is refused, and what parses keeps its properties", arguments: FuzzTarget.allCases)
    func replay(_ target: FuzzTarget) throws {
        let corpus = Self.files("Corpus", target)
        #expect(!corpus.isEmpty, "no seeds in Fuzz/Corpus/\(target.rawValue)")
        for file in corpus + Self.files("Crashes", target) {
            let failure = target.run(Array(try Data(contentsOf: file)))
            #expect(failure == nil, "\(file.lastPathComponent): \(failure ?? "")")
        }
    }

    @Test("The request target knows every command the core answers, and the corpus has a seed for each")
    func requestCommands() throws {
        #expect(Set(FuzzTarget.requestCommands) == Set(HomeCommand.names), "append a new command at the end of FuzzTarget.requestCommands")
        #expect(Set(FuzzTarget.requestCommands).count == FuzzTarget.requestCommands.count)
        let seeded = Set(try Self.files("Corpus", .request).compactMap { try Data(contentsOf: $0).first })
        for command in FuzzTarget.requestCommands {
            #expect(FuzzTarget.requestSelector(command).map(seeded.contains) == true, "no seed for \(command)")
        }
    }

    @Test("Each matter-bridge seed is an invoke or write the bridge accepts, but those named as refused")
    func matterBridgeSeeds() throws {
        for file in Self.files("Corpus", .matterBridge) {
            let answer = FuzzTarget.matterBridgeAnswer(Array(try Data(contentsOf: file)))
            let refused = file.lastPathComponent.contains("-refused-")
            #expect(refused ? answer != "success" : answer == "success", "\(file.lastPathComponent): \(answer ?? "no request")")
        }
    }
}
