import Foundation

extension PortHolder {
    /// Who has a UDP socket bound to `port` (the Matter bridge's), as `describe(port:)` says a TCP
    /// port's listeners: "homegate (pid 1234)", or nil.
    public static func describe(udpPort port: Int) -> String? {
        var inodes: Set<String> = []
        for table in ["/proc/net/udp", "/proc/net/udp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            inodes.formUnion(boundInodes(port: port, table: text))
        }
        return describe(holding: inodes)
    }

    /// From one table: `sl local_address rem_address st … inode`, every socket on the local port.
    static func boundInodes(port: Int, table: String) -> Set<String> {
        var inodes: Set<String> = []
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 9, let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == port, fields[9] != "0"
            else { continue }
            inodes.insert(String(fields[9]))
        }
        return inodes
    }
}
