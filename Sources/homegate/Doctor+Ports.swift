#if canImport(Glibc)
import Glibc
#endif

extension Doctor {
    /// A bridge's socket: the HomeKit bridge's TCP listener or the Matter bridge's UDP one.
    enum SocketType {
        case tcp, udp
    }

    /// 0 when a socket of `type` can take `port` of every address as a bridge's does (`::` with
    /// SO_REUSEADDR, else `0.0.0.0`; a TCP one listening too), else the errno.
    static func canBind(port: Int, type: SocketType) -> Int32 {
        let kind = type == .tcp ? SOCK_STREAM : SOCK_DGRAM
        for family in [AF_INET6, AF_INET] {
            let fd = socket(family, Int32(kind.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var one: Int32 = 1
            var zero: Int32 = 0
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            let rc: Int32
            if family == AF_INET6 {
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port).bigEndian)
                rc = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                rc = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            if rc == 0 { return (type == .udp || listen(fd, 1) == 0) ? 0 : errno }
            let code = errno
            if code == EADDRINUSE || code == EACCES { return code }
        }
        return EAFNOSUPPORT
    }
}
