import ArgumentParser

@main
struct Homegate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "homegate",
        abstract: "An MQTT home gateway: Zigbee2MQTT and MQTT devices as one HomeKit-shaped home.",
        version: Version.description,
        subcommands: [Run.self, Health.self, Doctor.self, Validate.self, Export.self, Import.self, ClearRetained.self, HAPCommand.self, MatterCommand.self]
    )
}
