public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private mosquitto on a free loopback port: its own config, password file and certificates
/// in a temporary directory. Stopped by PID when released. For tests and benchmarks only.
public final class TestBroker: @unchecked Sendable {
    public struct Options: Sendable {
        /// Users for a password file; when non-empty, anonymous clients are refused.
        public var users: [String: String] = [:]
        /// Adds a TLS listener with a CA and server certificate made by openssl for this broker.
        public var tls = false
        /// With `tls`: the TLS listener accepts only clients with a certificate signed by its CA.
        public var requireClientCertificate = false
        /// Keeps sessions and queued messages across a stop and start.
        public var persistence = false
        /// More mosquitto.conf lines, as they are.
        public var extraConfiguration: [String] = []
        /// Per-packet logging costs the broker time; benchmarks turn it off.
        public var verboseLog = true

        public init(
            users: [String: String] = [:], tls: Bool = false, requireClientCertificate: Bool = false,
            persistence: Bool = false, extraConfiguration: [String] = [], verboseLog: Bool = true
        ) {
            self.users = users
            self.tls = tls
            self.requireClientCertificate = requireClientCertificate
            self.persistence = persistence
            self.extraConfiguration = extraConfiguration
            self.verboseLog = verboseLog
        }
    }

    public static let executable = ["/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto", "/usr/bin/mosquitto"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    public static var isAvailable: Bool { executable != nil }

    public let directory: URL
    public private(set) var port: Int32
    public private(set) var tlsPort: Int32?
    /// The CA that signed this broker's certificate, and one that did not.
    public private(set) var caFile: String?
    public private(set) var otherCAFile: String?
    /// A client certificate and key signed by `caFile`.
    public private(set) var clientCertificate: (certificate: String, key: String)?
    private let lock = NSLock()
    private var pid: pid_t = 0

    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// The broker's process while it runs (0 when stopped), for benchmarks that measure its CPU.
    public var processID: pid_t { lock.withLock { pid } }
    public var tlsURL: String? { tlsPort.map { "mqtts://127.0.0.1:\($0)" } }
    public var logFile: URL { directory.appendingPathComponent("mosquitto.log") }

    public init(_ options: Options = Options()) throws {
        guard Self.executable != nil else { throw TestBrokerError("mosquitto is not installed") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("homegate-broker-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try freePort()
        tlsPort = options.tls ? try freePort() : nil
        // Another program may take the probed port before mosquitto binds it: then try new ports.
        for attempt in 1...5 {
            do {
                try configure(options)
                try start()
                return
            } catch let error as TestBrokerError where error.description.hasPrefix("mosquitto exited at start") && attempt < 5 {
                port = try freePort()
                tlsPort = options.tls ? try freePort() : nil
            }
        }
    }

    private func configure(_ options: Options) throws {
        // As root, mosquitto would switch to its own user and lose access to this directory.
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        var config = [
            "user \(user)", "listener \(port) 127.0.0.1", "log_dest file \(logFile.path)",
            options.verboseLog ? "log_type all" : "log_type error",
        ]
        if options.users.isEmpty {
            config.append("allow_anonymous true")
        } else {
            let passwords = directory.appendingPathComponent("passwd")
            try "".write(to: passwords, atomically: true, encoding: .utf8)
            for (user, password) in options.users.sorted(by: { $0.key < $1.key }) {
                try runTool(["/usr/bin/mosquitto_passwd", "-b", passwords.path, user, password])
            }
            config += ["allow_anonymous false", "password_file \(passwords.path)"]
        }
        if let tlsPort {
            try makeCertificates()
            config += [
                "listener \(tlsPort) 127.0.0.1", "cafile \(path("ca.crt"))",
                "certfile \(path("server.crt"))", "keyfile \(path("server.key"))",
            ]
            caFile = path("ca.crt")
            otherCAFile = path("other-ca.crt")
            clientCertificate = (path("client.crt"), path("client.key"))
            if options.requireClientCertificate { config.append("require_certificate true") }
        }
        if options.persistence {
            config += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 1"]
        }
        config += options.extraConfiguration
        try config.joined(separator: "\n").appending("\n").write(
            to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Starts (or restarts, on the same port) and waits until the broker accepts connections.
    public func start() throws {
        try lock.withLock {
            guard pid == 0 else { return }
            pid = try spawn([Self.executable!, "-c", path("mosquitto.conf")], output: path("mosquitto.out"))
        }
        let deadline = Date().addingTimeInterval(10)
        while !canConnect(port: port) || !(tlsPort.map(canConnect) ?? true) {
            guard Date() < deadline else { throw TestBrokerError("mosquitto did not listen on \(port): \(log())") }
            try ensureRunning()
            usleep(5_000)
        }
        // A mosquitto that lost its port needs a moment to exit; another broker may be answering.
        usleep(20_000)
        try ensureRunning()
    }

    /// A broker that exited (its port taken by another test's broker in the meantime) must not
    /// leave the test talking to someone else's broker on that port.
    private func ensureRunning() throws {
        try lock.withLock {
            guard pid != 0 else { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = 0
                throw TestBrokerError("mosquitto exited at start (status \(status)): \(log())")
            }
        }
    }

    /// Stops the broker gracefully (SIGTERM): it saves persistent sessions and delivers wills.
    public func stop() { signal(SIGTERM) }

    /// Kills the broker outright (SIGKILL).
    public func kill() { signal(SIGKILL) }

    private func signal(_ sig: Int32) {
        lock.withLock {
            guard pid != 0 else { return }
            Glibc.kill(pid, sig)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            pid = 0
        }
    }

    public func log() -> String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? "(no log)"
    }

    private func makeCertificates() throws {
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "other-ca"] {
            try runTool(
                ["/usr/bin/openssl", "req", "-x509"] + ec + [
                    "-keyout", path("\(ca).key"), "-out", path("\(ca).crt"),
                    "-days", "2", "-subj", "/CN=homegate test \(ca)",
                ])
        }
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: path("san.ext"), atomically: true, encoding: .utf8)
        for (name, subject) in [("server", "/CN=localhost"), ("client", "/CN=homegate")] {
            try runTool(
                ["/usr/bin/openssl", "req"] + ec + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
            try runTool([
                "/usr/bin/openssl", "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.crt"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("\(name).crt"), "-days", "2", "-extfile", path("san.ext"),
            ])
        }
    }

    private func runTool(_ argv: [String]) throws {
        let output = path("tool.out")
        let child = try spawn(argv, output: output)
        var status: Int32 = 0
        waitpid(child, &status, 0)
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw TestBrokerError("\(argv[0]) failed (\(status)): \(text)")
        }
    }
}

public struct TestBrokerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
