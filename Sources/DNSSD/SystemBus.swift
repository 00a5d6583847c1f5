import Glibc

/// Where libavahi-client looks for the system D-Bus, and why it may not get there: the reasons the
/// state gives are for a person reading the log, who needs the path and the errno, not avahi's
/// "An unexpected D-Bus error occurred".
enum SystemBus {
    /// libavahi-client connects with libdbus's `dbus_bus_get_private(DBUS_BUS_SYSTEM)`, which takes
    /// DBUS_SYSTEM_BUS_ADDRESS when set, else libdbus's built-in default (this one on Debian).
    static var address: String {
        if let value = getenv("DBUS_SYSTEM_BUS_ADDRESS").map({ String(cString: $0) }), !value.isEmpty { return value }
        return "unix:path=/run/dbus/system_bus_socket"
    }

    /// The socket path of a `unix:path=` address, or the address itself.
    static var displayedAddress: String { socketPath ?? address }

    static var socketPath: String? {
        // The first transport only, as "unix:path=/x,guid=…;tcp:…" would be tried in order.
        let first = address.split(separator: ";").first.map(String.init) ?? address
        guard first.hasPrefix("unix:") else { return nil }
        for field in first.dropFirst("unix:".count).split(separator: ",") where field.hasPrefix("path=") {
            return String(field.dropFirst("path=".count))
        }
        return nil
    }

    /// Why nothing answers on the bus socket, found by connecting to it the way libdbus would.
    static func diagnose() -> String {
        guard let path = socketPath else { return "the bus address '\(address)' could not be connected to" }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return "no socket could be made: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: socketAddress.sun_path)
        guard path.utf8.count < capacity else { return "the socket path is longer than \(capacity - 1) bytes" }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let rc = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc == 0 { return "the system D-Bus accepts connections but refused avahi's client (a D-Bus policy?)" }
        let code = errno
        switch code {
        case ENOENT: return "no such socket: the system D-Bus is not running; in a container, mount the host's /run/dbus"
        case ECONNREFUSED: return "nothing listens on the socket: the system D-Bus has stopped"
        case EACCES: return "permission denied on the socket"
        default: return String(cString: strerror(code))
        }
    }
}
