import Foundation
import Gateway
import HAPBridge
import JSON

#if canImport(Glibc)
import Glibc
#endif

extension Doctor {
    /// The HomeKit bridge: from a running homegate's health, whether each bridge serves and is
    /// advertised; else whether its port can be taken and avahi-daemon is there. Then how many
    /// controllers have paired (from the database, or the running homegate's HTTP API).
    func checkHomeKit(_ settings: GatewayConfiguration, running: JSONValue?, _ report: inout DoctorReport) async {
        guard settings.hap.enabled else {
            report.info("homekit", "the bridge is off (hap.enabled: false)")
            return
        }
        if let bridges = running?["homekit"]?["bridges"]?.arrayValue {
            for bridge in bridges { Self.checkRunning(bridge, &report) }
        } else {
            if running == nil { Self.checkPort(settings.hap.port, &report) }
            Self.checkAvahi(&report)
        }
        await checkPairings(settings, &report)
    }

    private static func checkRunning(_ bridge: JSONValue, _ report: inout DoctorReport) {
        let number = bridge["number"]?.intValue ?? 1
        if bridge["serving"] == false {
            report.fail(
                "homekit", "bridge \(number) does not serve: \(bridge["problem"]?.stringValue ?? "it cannot listen")",
                hint: "set hap.port (HOMEGATE_HAP_PORT) to a free port, or stop the program that holds it; homegate tries again by itself")
            return
        }
        report.pass("homekit", "bridge \(number) serves")
        let detail = bridge["detail"]?.stringValue ?? ""
        switch bridge["advertisement"]?.stringValue {
        case "advertised": report.pass("mdns", "bridge \(number): \(detail)")
        case "not_advertised":
            report.warn(
                "mdns", "bridge \(number) is not advertised: \(detail)",
                hint: "install and start avahi-daemon on the host; in a container, mount /run/dbus (compose.homekit.yaml does)")
        default: report.info("mdns", "bridge \(number): \(detail.isEmpty ? "starting" : detail)")
        }
    }

    /// Whether the bridge's port can be listened on, as the bridge listens (`::`, else `0.0.0.0`).
    static func checkPort(_ port: Int, _ report: inout DoctorReport) {
        guard port != 0 else {
            report.info("homekit", "hap.port is 0: the bridge takes any free port")
            return
        }
        switch Self.canBind(port: port, type: .tcp) {
        case 0:
            report.pass("homekit", "port \(port) is free for the bridge")
        case EADDRINUSE:
            let holder = PortHolder.describe(port: port) ?? "another program"
            report.fail(
                "homekit", "port \(port) is in use by \(holder)",
                hint: "set hap.port (HOMEGATE_HAP_PORT) to a free port, or stop \(holder); homegate runs the house without the bridge meanwhile")
        case let code:
            report.warn("homekit", "port \(port) cannot be listened on: \(String(cString: strerror(code)))", hint: "check hap.port")
        }
    }

    /// avahi-daemon reached as the bridge reaches it: through the system D-Bus.
    static func checkAvahi(_ report: inout DoctorReport, compose: String = "compose.homekit.yaml") {
        let bus = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { address -> String? in
            guard let path = address.split(separator: ",").first(where: { $0.hasPrefix("unix:path=") }) else { return nil }
            return String(path.dropFirst("unix:path=".count))
        } ?? "/run/dbus/system_bus_socket"
        guard FileManager.default.fileExists(atPath: bus) else {
            report.warn(
                "mdns", "no system D-Bus at \(bus): the bridge will not be advertised (controllers that know its address can still pair)",
                hint: "install and start avahi-daemon; in a container, mount the host's /run/dbus (\(compose) does)")
            return
        }
        if FileManager.default.fileExists(atPath: "/run/avahi-daemon/pid") || FileManager.default.fileExists(atPath: "/run/avahi-daemon/socket") {
            report.pass("mdns", "the system D-Bus is at \(bus) and avahi-daemon runs")
        } else {
            report.info("mdns", "the system D-Bus is at \(bus); whether avahi-daemon is on it shows once the bridge runs (homegate health)")
        }
    }

    private func checkPairings(_ settings: GatewayConfiguration, _ report: inout DoctorReport) async {
        guard FileManager.default.fileExists(atPath: settings.database) else {
            report.info("homekit", "not paired yet: the database is made at the first start")
            return
        }
        do {
            let access = try BridgeStateAccess.open(settings)
            defer { access.close() }
            for bridge in try await access.bridges(creatingIdentities: false) {
                let count = bridge.controllers.count
                if count == 0 {
                    report.info("homekit", "bridge \(bridge.number) is not paired: homegate hap pairing shows its setup code")
                } else {
                    report.pass("homekit", "bridge \(bridge.number) is paired with \(count) controller\(count == 1 ? "" : "s") (c# \(bridge.configurationNumber))")
                }
            }
        } catch {
            report.info("homekit", "pairings not read: \(error)")
        }
    }
}
