import ArgumentParser
import Automation
import Foundation
import Gateway
import HAPBridge
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

    @Flag(
        help:
            "Add the HomeKit bridge's state (its secret key, pairings and accessory numbers), to move homegate to another machine without adding it to Apple Home again. The file is then as secret as the database."
    )
    var includeHomekit = false

    @Flag(
        help:
            "Add the Matter bridge's state (its setup and device attestation key, its fabrics and endpoint numbers), to move homegate to another machine without adding it to each ecosystem again. The file is then as secret as the database."
    )
    var includeMatter = false

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
            var homekit: [String: String]?
            if includeHomekit {
                homekit = try store.adapterStates().filter { BridgeStateKeys.isHomeKit($0.key) }
                if homekit?.isEmpty == true {
                    printError("homegate: the database has no HomeKit bridge state (the bridge has not started yet): exported without it")
                    homekit = nil
                }
            }
            var matter: [String: String]?
            if includeMatter {
                matter = try store.adapterStates().filter { MatterSummary.isMatter($0.key) }
                if matter?.isEmpty == true {
                    printError("homegate: the database has no Matter bridge state (the bridge has not started yet): exported without it")
                    matter = nil
                }
            }
            text = HomeArchive.export(home, homekit: homekit, matter: matter)
            if matter != nil {
                printError(
                    "homegate: the export holds the Matter bridge's keys and fabrics: keep it private\(output == nil ? " (chmod 600)" : "; written with mode 0600")"
                )
            }
            if homekit != nil {
                printError(
                    "homegate: the export holds the HomeKit bridge's secret key and pairings: keep it private\(output == nil ? " (chmod 600)" : "; written with mode 0600")"
                )
            }
        } catch let error as PersistenceError {
            printError("homegate: \(error)")
            throw ExitCode(1)
        }
        if let output {
            do {
                if includeHomekit || includeMatter {
                    try writePrivately(text, to: output)
                } else {
                    try text.write(toFile: output, atomically: true, encoding: .utf8)
                }
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

    @Argument(help: "The YAML file written by `homegate export`; - reads it from standard input.")
    var file: String

    @Option(name: .shortAndLong, help: "The configuration file (homegate.yaml); HOMEGATE_CONFIG names it too.")
    var config: String?

    @Option(help: "The database, instead of the configuration's.")
    var database: String?

    @Flag(
        help:
            "Replace what the database holds instead of refusing a database that is not empty (or, for an export with the HomeKit or Matter bridge's state, one that has a bridge state of its own)."
    )
    var replace = false

    func run() async throws {
        let settings = try loadSettings(config)
        let path = URL(fileURLWithPath: database ?? settings.database).standardizedFileURL.path
        // The built-in default is relative to the current folder: a restore run from the wrong
        // folder would make a new database there and say it succeeded.
        if database == nil, settings.database == GatewayConfiguration().database, !FileManager.default.fileExists(atPath: path) {
            printError(
                "homegate: there is no database at \(path) (the default, ./data/homegate.sqlite of this folder); nothing was imported. "
                    + "Name the one homegate runs with (--config /etc/homegate/homegate.yaml), or --database <file> to make a new one"
            )
            throw ExitCode(1)
        }
        let source = file == "-" ? "standard input" : file
        let text: String
        do {
            if file == "-" {
                text = String(decoding: try FileHandle.standardInput.readToEnd() ?? Data(), as: UTF8.self)
            } else {
                text = try String(contentsOfFile: file, encoding: .utf8)
            }
        } catch {
            printError("homegate: cannot read \(source): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        do {
            let contents = try HomeArchive.readContents(text, file: source, timeZone: settings.clockContext.timeZone)
            let home = contents.home
            let store = try SQLiteHomeStore(path: path)
            defer { store.close() }
            if let mode = store.fileMode { printError("homegate: \(mode)") }
            guard try replace || store.isEmpty() else { throw PersistenceError.notEmpty(path: path) }
            let states = try store.adapterStates()
            let existing = states.filter { BridgeStateKeys.isHomeKit($0.key) }
            let existingMatter = states.filter { MatterSummary.isMatter($0.key) }
            if let matter = contents.matter, !replace, !existingMatter.isEmpty, existingMatter != matter {
                printError(
                    "homegate: the database \(path) has a Matter bridge of its own (\(MatterSummary(existingMatter))); the export's would replace it, and the ecosystems that added it would lose it. Add --replace to replace it; nothing was imported"
                )
                throw ExitCode(1)
            }
            if let homekit = contents.homekit {
                guard replace || existing.isEmpty || existing == homekit else {
                    printError(
                        "homegate: the database \(path) has a HomeKit bridge of its own (\(HomeKitSummary(existing))); the export's would replace it, and whatever Apple Home paired with it would stop working. Add --replace to replace it; nothing was imported"
                    )
                    throw ExitCode(1)
                }
            }
            if contents.homekit != nil || contents.matter != nil {
                let kept = states.filter {
                    !(contents.homekit != nil && BridgeStateKeys.isHomeKit($0.key)) && !(contents.matter != nil && MatterSummary.isMatter($0.key))
                }
                try store.replaceAll(with: home, adapterState: kept.merging(contents.homekit ?? [:]) { $1 }.merging(contents.matter ?? [:]) { $1 })
            } else {
                try store.replaceAll(with: home)
            }
            print(
                "\(path): imported \(home.structure.homes.count) home(s), \(home.structure.rooms.count) room(s), \(home.structure.zones.count) zone(s), "
                    + "\(home.structure.placements.count) accessory placement(s), \(home.actionSets.count) action set(s), \(home.triggers.count) trigger(s)"
            )
            if let homekit = contents.homekit {
                print(
                    "\(path): restored the HomeKit bridge's state (\(HomeKitSummary(homekit))): Apple Home stays paired once this homegate runs with hap.enabled: true; never run the old one's bridge again beside it"
                )
                if !existing.isEmpty, existing != homekit {
                    print("\(path): replaced the HomeKit bridge state the database had (\(HomeKitSummary(existing)))")
                }
            } else if !existing.isEmpty {
                print("\(path): kept the database's HomeKit bridge state (the export has none)")
            }
            if let matter = contents.matter {
                print(
                    "\(path): restored the Matter bridge's state (\(MatterSummary(matter))): every ecosystem keeps it once this homegate runs with matter.enabled: true; never run the old one's bridge again beside it"
                )
            } else if !existingMatter.isEmpty {
                print("\(path): kept the database's Matter bridge state (the export has none)")
            }
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
