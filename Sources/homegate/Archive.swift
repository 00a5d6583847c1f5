import ArgumentParser
import Automation
import Foundation
import Gateway
import HomeModel
import Persistence

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write homes, rooms, zones, accessory placements, action sets and triggers as YAML.",
        discussion: """
            Reads the database named by the configuration (or --database); safe while homegate runs. Restore with `homegate import`. \
            Exits 1 when something stored cannot be read and was left out (each is named): the export is written, but it is not the whole home.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "The database, instead of the configuration's.")
    var database: String?

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
    var output: String?

    func run() async throws {
        let path = try database ?? loadSettings(config).database
        guard FileManager.default.fileExists(atPath: path) else {
            printError("homegate: there is no database at \(path)")
            throw ExitCode(1)
        }
        let text: String
        let leftOut: Int
        do {
            let store = try SQLiteHomeStore(path: path, access: .reader)
            guard let home = try store.load() else {
                printError("homegate: the database \(path) holds no home yet")
                throw ExitCode(1)
            }
            for skipped in home.skipped { printError("homegate: left out: \(skipped)") }
            leftOut = home.skipped.count
            text = HomeArchive.export(home)
        } catch let error as PersistenceError {
            printError("homegate: \(error)")
            throw ExitCode(1)
        }
        if let output {
            do {
                try text.write(toFile: output, atomically: true, encoding: .utf8)
            } catch {
                printError("homegate: cannot write \(output): \(error.localizedDescription)")
                throw ExitCode(1)
            }
        } else {
            print(text, terminator: "")
        }
        if leftOut > 0 {
            printError(
                "homegate: the export is not the whole home: \(leftOut) stored item\(leftOut == 1 ? "" : "s") could not be read and \(leftOut == 1 ? "was" : "were") left out"
            )
            throw ExitCode(1)
        }
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore an export onto an empty database.",
        discussion:
            "Checks the whole file first and changes nothing if it has problems (each printed as file:line:column). homegate must not be running on the database."
    )

    @Argument(help: "The YAML file written by `homegate export`.")
    var file: String

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "The database, instead of the configuration's.")
    var database: String?

    @Flag(help: "Replace what the database holds instead of refusing a database that is not empty.")
    var replace = false

    func run() async throws {
        let settings = try loadSettings(config)
        let path = database ?? settings.database
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            printError("homegate: cannot read \(file): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        do {
            let home = try HomeArchive.read(text, file: file, timeZone: settings.clockContext.timeZone)
            let store = try SQLiteHomeStore(path: path)
            guard try replace || store.isEmpty() else { throw PersistenceError.notEmpty(path: path) }
            try store.replaceAll(with: home)
            print(
                "\(path): imported \(home.structure.homes.count) home(s), \(home.structure.rooms.count) room(s), \(home.structure.zones.count) zone(s), "
                    + "\(home.structure.placements.count) accessory placement(s), \(home.actionSets.count) action set(s), \(home.triggers.count) trigger(s)"
            )
        } catch let error as ArchiveError {
            printError(error.description)
            printError("homegate: nothing was imported")
            throw ExitCode(1)
        } catch {
            printError("homegate: \(error)")
            throw ExitCode(1)
        }
    }
}
