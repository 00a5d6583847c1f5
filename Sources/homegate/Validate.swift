import ArgumentParser

struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check mapping files without starting anything.")

    @Argument(help: "The mappings folder.")
    var directory = "mappings"

    func run() async throws {
        printError("homegate validate: mapping files are not supported yet")
        throw ExitCode(2)
    }
}
