import Foundation

/// Who listens on a TCP port, for the message that says why the bridge cannot: on Linux the
/// listening socket's inode from /proc/net/tcp and tcp6, then the process holding that inode
/// among /proc/*/fd. Nil where it cannot tell (not Linux, or another user's process).
public enum PortHolder {
    /// "homebridge (pid 1234)", or nil; every holder where several processes listen on the port
    /// (on different addresses, or sharing the socket): "homebridge (pid 1234), node (pid 1240)".
    public static func describe(port: Int) -> String? {
        describe(holding: listeningInodes(port: port))
    }

    /// The processes that hold any of the sockets `inodes`, as `describe(port:)` says them.
    static func describe(holding inodes: Set<String>) -> String? {
        guard !inodes.isEmpty, let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        var holders: [String] = []
        for pid in processes where pid.allSatisfy(\.isNumber) {
            guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { continue }
            let holds = fds.contains { fd in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)") else { return false }
                return target.hasPrefix("socket:[") && inodes.contains(String(target.dropFirst(8).dropLast()))
            }
            guard holds else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            holders.append("\(name ?? "a process") (pid \(pid))")
        }
        return holders.isEmpty ? nil : holders.joined(separator: ", ")
    }

    /// The inodes of sockets listening on `port` (state 0A), IPv4 and IPv6.
    static func listeningInodes(port: Int) -> Set<String> {
        var inodes: Set<String> = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            inodes.formUnion(listeningInodes(port: port, table: text))
        }
        return inodes
    }

    /// From one table: `sl local_address rem_address st … inode`, the address as HEX:PORTHEX.
    static func listeningInodes(port: Int, table: String) -> Set<String> {
        var inodes: Set<String> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[3] == "0A", let local = fields[1].split(separator: ":").last,
                Int(local, radix: 16) == port, fields[9] != "0"
            else { continue }
            inodes.insert(String(fields[9]))
        }
        return inodes
    }
}
