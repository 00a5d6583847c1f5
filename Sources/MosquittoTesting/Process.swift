public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Spawns with an empty signal mask: threads of Swift's cooperative pool block SIGTERM, and a
/// child that inherits that mask never sees it.
public func spawn(_ argv: [String], output: String? = nil, environment: [String: String]? = nil) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if let output {
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
    }
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    let envStrings = environment.map { env in env.map { "\($0.key)=\($0.value)" } }
    let cEnv = envStrings.map { $0.map { strdup($0) } + [nil] }
    defer { cEnv?.forEach { free($0) } }
    var pid: pid_t = 0
    let rc =
        cEnv.map { env in posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, env) }
        ?? posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, environ)
    guard rc == 0 else { throw TestBrokerError("cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
    return pid
}

/// A port the kernel says is free on 127.0.0.1 right now.
public func freePort() throws -> Int32 {
    let (fd, port) = try bindLoopback(port: 0)
    close(fd)
    return port
}

/// Whether something accepts TCP connections on 127.0.0.1:port.
public func canConnect(port: Int32) -> Bool {
    guard let fd = connectLoopback(port: port) else { return false }
    close(fd)
    return true
}

/// A TCP socket connected to 127.0.0.1:`port`, `prepare` run on it first (socket options that
/// must be set before connecting); nil when that fails, with `errno` saying why.
public func connectLoopback(port: Int32, prepare: (Int32) -> Void = { _ in }) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    prepare(fd)
    var address = loopback(port)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        let reason = errno
        close(fd)
        errno = reason
        return nil
    }
    return fd
}

/// A TCP socket bound to 127.0.0.1:`port` (0: one the kernel picks), listening when given a
/// backlog, and the port it is bound to.
public func bindLoopback(port: Int32, listen backlog: Int32? = nil) throws -> (fd: Int32, port: Int32) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestBrokerError("socket: \(String(cString: strerror(errno)))") }
    if backlog != nil {
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = loopback(port)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true) && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw TestBrokerError("cannot \(backlog == nil ? "bind" : "listen on") 127.0.0.1:\(port): \(reason)")
    }
    return (fd, Int32(UInt16(bigEndian: address.sin_port)))
}

private func loopback(_ port: Int32) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return address
}
