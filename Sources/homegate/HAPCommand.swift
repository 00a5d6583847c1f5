import ArgumentParser
import HAPBridge

/// `homegate hap …`: the HomeKit bridge's pairing, for people.
struct HAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hap", abstract: "The HomeKit bridge.",
        subcommands: [HAPPairingCommand.self, HAPResetCodeCommand.self, HAPResetCommand.self, HAPUnpairCommand.self])
}
