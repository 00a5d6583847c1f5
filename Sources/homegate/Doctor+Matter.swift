import Foundation
import Gateway
import HAPBridge
import JSON
import MatterBridge
import Persistence

#if canImport(Glibc)
import Glibc
#endif

extension Doctor {
    /// The Matter bridge: from a running homegate's health, whether it serves and what avahi
    /// advertises; else whether its UDP port is free and avahi-daemon is there. Then its stored
    /// state: readable, and on how many fabrics (ecosystems).
    func checkMatter(_ settings: GatewayConfiguration, running: JSONValue?, _ report: inout DoctorReport) async {
        guard settings.matter.enabled else {
            report.info("matter", "the bridge is off (matter.enabled: false)")
            return
        }
        if let section = running?["matter"], section != .null {
            Self.checkRunningMatter(section, &report)
        } else {
            if running == nil { Self.checkUDPPort(settings.matter.port, &report) }
            Self.checkAvahi(&report, compose: "compose.matter.yaml")
        }
        await checkMatterState(settings, &report)
    }

    static func checkRunningMatter(_ section: JSONValue, _ report: inout DoctorReport) {
        if section["serving"] == false {
            report.fail(
                "matter", "the bridge does not serve: \(section["problem"]?.stringValue ?? "it cannot listen")",
                hint: "set matter.port (HOMEGATE_MATTER_PORT) to a free UDP port, or stop the program that holds it; homegate tries again by itself")
            return
        }
        let port = section["port"]?.intValue ?? 0
        let endpoints = section["endpoints"]?.intValue ?? 0
        report.pass("matter", "the bridge serves on UDP port \(port) with \(endpoints) bridged endpoint\(endpoints == 1 ? "" : "s")")
        let advertisements = section["advertisements"]?.arrayValue ?? []
        if advertisements.isEmpty {
            report.info("mdns", "the Matter bridge is not advertised yet (starting)")
        }
        for advertisement in advertisements {
            let service = advertisement["service"]?.stringValue ?? "?"
            let detail = advertisement["detail"]?.stringValue ?? ""
            let kind = service.hasSuffix("._matterc._udp") ? "commissionable" : "operational"
            if advertisement["advertised"] == true {
                report.pass("mdns", "\(kind) \(service): \(detail)")
            } else {
                report.warn(
                    "mdns", "\(kind) \(service) is not advertised: \(detail)",
                    hint: "install and start avahi-daemon on the host; in a container, mount /run/dbus (compose.matter.yaml does)")
            }
        }
    }

    /// Whether the bridge can bind its UDP port as it binds it (`::` with SO_REUSEADDR, else
    /// `0.0.0.0`), and who else has it: two programs on one UDP port each get part of the messages.
    static func checkUDPPort(_ port: Int, _ report: inout DoctorReport) {
        guard port != 0 else {
            report.info("matter", "matter.port is 0: the bridge takes any free UDP port")
            return
        }
        let holder = PortHolder.describe(udpPort: port)
        switch Self.canBind(port: port, type: .udp) {
        case 0 where holder == nil:
            report.pass("matter", "UDP port \(port) is free for the bridge")
        case 0:
            report.warn(
                "matter", "UDP port \(port) is also bound by \(holder ?? "another program")",
                hint: "stop \(holder ?? "it") (a homegate still running?), or set matter.port (HOMEGATE_MATTER_PORT) to another port")
        case EADDRINUSE:
            report.fail(
                "matter", "UDP port \(port) is in use by \(holder ?? "another program")",
                hint: "set matter.port (HOMEGATE_MATTER_PORT) to a free port, or stop \(holder ?? "it"); homegate runs the house without the bridge meanwhile")
        case let code:
            report.warn("matter", "UDP port \(port) cannot be bound: \(String(cString: strerror(code)))", hint: "check matter.port")
        }
    }

    /// The bridge's setup, fabrics and endpoint map as stored, read only (a running homegate keeps writing them).
    private func checkMatterState(_ settings: GatewayConfiguration, _ report: inout DoctorReport) async {
        guard FileManager.default.fileExists(atPath: settings.database) else {
            report.info("matter", "not commissioned yet: the database is made at the first start")
            return
        }
        do {
            let store = try SQLiteHomeStore(path: settings.database, access: .reader)
            defer { store.close() }
            guard try store.adapterState("matter.setup") != nil else {
                report.info("matter", "not set up yet: the first start with matter.enabled (or homegate matter pairing) makes its codes")
                return
            }
            let pairing = try await MatterPairing.load(settings: settings.matter, load: { try store.adapterState($0) }, save: nil)
            let endpoints = try MatterPairing.storedEndpoints(load: { try store.adapterState($0) })
            let numbered = endpoints.map { ", \($0) device\($0 == 1 ? "" : "s") numbered" } ?? ""
            if pairing.fabrics.isEmpty {
                report.info(
                    "matter", "stored state readable\(numbered); on no fabric yet: homegate matter pairing prints the codes to add it with")
            } else {
                // As `homegate matter pairing` and `unpair` print a fabric, on one line.
                let fabrics = pairing.fabrics.map { MatterUnpairCommand.line($0).trimmingCharacters(in: .whitespaces) }
                report.pass(
                    "matter",
                    "stored state readable\(numbered); on \(pairing.fabrics.count) fabric\(pairing.fabrics.count == 1 ? "" : "s"): \(fabrics.joined(separator: "; "))"
                )
            }
        } catch {
            report.fail(
                "matter", "stored state not readable: \(error)",
                hint: "restore the database from a backup, or remove the matter.* keys of adapter_state and commission the bridge again")
        }
    }
}
