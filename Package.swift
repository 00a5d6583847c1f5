// swift-tools-version:6.2
// 6.2: swift-log and swift-service-lifecycle need it; the Dockerfile's Swift image must be at least as new.
import Foundation
import PackageDescription

#if os(Linux)
import Glibc
#endif

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// How the shipped executables are linked in release builds on Linux: by lld, with their relative
/// relocations packed (DT_RELR), and without the dynamic symbol table that `--static-swift-stdlib`
/// would export for the whole Swift runtime (nothing loads plugins into homegate): less resident
/// memory, see docs/performance.md. Packed relocations need glibc 2.36 or later where the program
/// runs, so the build host's glibc decides, as it does for the rest of the binary.
let leanLinking: [LinkerSetting] = [
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
            + (hostGlibcLoadsPackedRelocations ? ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []),
        .when(platforms: [.linux], configuration: .release)
    )
]

let package = Package(
    name: "homegate",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "homegate", targets: ["homegate"]),
        .executable(name: "homegate-simulator", targets: ["homegate-simulator"]),
        .executable(name: "hap-demo", targets: ["hap-demo"]),
        .executable(name: "matter-demo", targets: ["matter-demo"]),
        // For the libFuzzer executables in Fuzz/, a package of their own built with the fuzzer's flags.
        .library(name: "FuzzTargets", targets: ["FuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/attaswift/BigInt.git", from: "6.0.1"),
    ],
    targets: droppingMissingTests([
        // The C library, seen through a module map.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // A password, token or key that never prints: the broker's password, the HTTP token, the setup code.
        .target(name: "Secrets", swiftSettings: swiftSettings),
        // The only module that touches libmosquitto's C API.
        .target(
            name: "Mosquitto",
            dependencies: ["CMosquitto", "Secrets", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // A private mosquitto broker on a free loopback port, for tests and benchmarks.
        .target(name: "MosquittoTesting", swiftSettings: swiftSettings),
        // A small JSON value type with a parser and a serialiser (no Foundation on the hot path).
        .target(name: "JSON", swiftSettings: swiftSettings),
        // The HAP catalogue and the home model: pure value types, no I/O.
        .target(name: "HomeModel", dependencies: ["JSON"], swiftSettings: swiftSettings),
        // Mapping files and Zigbee2MQTT exposes: payloads in, characteristic values out, and back.
        .target(
            name: "Mappings",
            dependencies: ["HomeModel", "JSON", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // Action sets and triggers: schedules, sunrise and sunset, conditions, the trigger index.
        // Pure rules; time comes in as an argument.
        .target(
            name: "Automation",
            dependencies: ["HomeModel", "JSON", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: swiftSettings
        ),
        // The core and its typed surface: the home (HomeCore), the commands, answers, events and
        // snapshot every front end speaks (`GatewayAccess`), the device sources, the event hub, the
        // shapes the store keeps, the configuration. Neither Mosquitto nor Hummingbird nor NIO nor
        // GRDB: scripts/test.sh checks that no such import creeps in.
        .target(
            name: "GatewayCore",
            dependencies: [
                "HomeModel", "Mappings", "JSON", "Automation", "Secrets", .product(name: "Logging", package: "swift-log"),
                // `retrying`, the bridges' backoff, ends its wait on a graceful shutdown.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The home kept in SQLite (GRDB, WAL, versioned migrations), behind the HomeStore protocol:
        // the core's stored shapes (`StoreBatch`, `StoredHome`) written and read back.
        .target(
            name: "Persistence",
            dependencies: [
                "GatewayCore", "HomeModel", "Automation", "JSON", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The front ends' fakes: the surface in memory over a real core (no broker, no SQLite), and
        // a clock that moves when told. For tests; never linked into homegate.
        .target(
            name: "GatewayTesting",
            dependencies: ["GatewayCore", "HomeModel", "Mappings", "JSON", "Automation"],
            swiftSettings: swiftSettings
        ),
        // The hub and the MQTT side (the runtime, the MQTT API, the store writer, the services),
        // wired together as services.
        .target(
            name: "Gateway",
            dependencies: [
                "GatewayCore", "Mosquitto", "Secrets", "HomeModel", "Mappings", "JSON", "Automation", "Persistence",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP API, the event stream and the web page: a front end over the core's surface
        // (GatewayCore alone, never Gateway or Mosquitto), its own module so the fuzzed parsers do
        // not build a web server. `/api/homekit` goes through the HomeKit bridge's `HomeKitControl`.
        .target(
            name: "HTTPAPI",
            dependencies: [
                "GatewayCore", "Secrets", "JSON", "HomeModel", "HAPQRCode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "homegate",
            dependencies: [
                "Gateway", "GatewayCore", "HTTPAPI", "Mappings", "Persistence", "HomeModel", "Automation", "Secrets",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // `homegate hap pairing` draws the setup URI as a QR code.
                "HAPBridge", "HAPQRCode",
                "MatterBridge",
                // `homegate hap reset-code` and `hap unpair` ask a running homegate over its HTTP API.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: leanLinking
        ),
        // A Zigbee2MQTT bridge without a radio, for trying, testing and benchmarking.
        .target(
            name: "Simulator",
            dependencies: ["Mosquitto", "JSON", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "homegate-simulator",
            dependencies: [
                "Simulator", "Mosquitto", "JSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            linkerSettings: leanLinking
        ),
        // Each parser that takes outside input as a function of bytes: fuzzed in Fuzz/, replayed in the tests.
        .target(
            name: "FuzzTargets", dependencies: ["JSON", "HomeModel", "Mappings", "Gateway", "GatewayCore", "Matter", "MatterBridge"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "homegate-bench",
            dependencies: [
                "Mosquitto", "MosquittoTesting", "CMosquitto", "Simulator", "JSON", "HomeModel", "Automation", "GatewayCore", "Persistence",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HomeKit Accessory Protocol server (IP transport): pairing, the encrypted session,
        // the accessory database and events. Imports no homegate module; an adapter maps the home onto it.
        .target(
            name: "HAP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "BigInt", package: "BigInt"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // libqrencode, for drawing the setup code as a QR code in a terminal.
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "HAPQRCode", dependencies: ["CQREncode"], swiftSettings: swiftSettings),
        // A HAP server over a fake bridge, for the aiohomekit tests (scripts/hap-test.sh).
        .executableTarget(
            name: "hap-demo",
            dependencies: [
                "HAP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // DNS-SD advertisement of the HAP bridge through avahi-daemon (issue 37, item 4): a module on its own,
        // with no other homegate module, and the probe that scripts/mdns-test.sh runs in a network namespace.
        .systemLibrary(
            name: "CAvahi",
            pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        // The only module that touches libavahi-client's C API.
        .target(
            name: "DNSSD",
            dependencies: ["CAvahi", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "homegate-dnssd-probe",
            dependencies: [
                "DNSSD",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HomeKit bridge (issue 37): the home as HAP accessories over the core's typed surface
        // (GatewayCore alone, never Gateway or Mosquitto), a peer adapter like the HTTP API; advertised
        // through the DNSSD module.
        .target(
            name: "HAPBridge",
            dependencies: [
                "GatewayCore", "HomeModel", "HAP", "DNSSD", "JSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Matter (issue 44): the device stack, a module that imports no homegate module (like HAP), and a
        // demo device for the tests with the Matter SDK's own controller (scripts/matter-test.sh).
        // swift-crypto's public API has neither P-256 point arithmetic (SPAKE2+ computes w0·M + X and
        // y·(X − w0·M)) nor AES-CCM (Matter's message cipher); Debian's OpenSSL libcrypto has both.
        .systemLibrary(name: "CMatterCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "Matter",
            dependencies: [
                "CMatterCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // A Matter node's advertisement through avahi (the DNSSD module), which the Matter module
        // leaves to its embedder: matter-demo's and the Matter bridge's.
        .target(
            name: "MatterDNSSD",
            dependencies: ["Matter", "DNSSD", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "matter-demo",
            dependencies: [
                "Matter", "MatterDNSSD",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Matter bridge (issue 45): the home as a Matter bridge (an Aggregator, one bridged endpoint
        // per device) over the core's typed surface (GatewayCore alone, never Gateway or Mosquitto), a
        // peer adapter like the HomeKit bridge; the Matter module knows nothing of homegate.
        .target(
            name: "MatterBridge",
            dependencies: [
                "GatewayCore", "HomeModel", "Mappings", "Matter", "MatterDNSSD", "JSON", "Secrets",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The tests, left out where Tests/ is missing (`droppingMissingTests`).
        .testTarget(name: "MosquittoTests", dependencies: ["Mosquitto", "MosquittoTesting", "Secrets"], swiftSettings: swiftSettings),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: swiftSettings),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "JSON"], swiftSettings: swiftSettings),
        .testTarget(name: "HomeModelTests", dependencies: ["HomeModel", "JSON"], swiftSettings: swiftSettings),
        .testTarget(name: "AutomationTests", dependencies: ["Automation", "HomeModel", "JSON"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PersistenceTests",
            dependencies: ["Persistence", "GatewayCore", "Automation", "HomeModel", "JSON", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CoreTests",
            dependencies: ["GatewayCore", "GatewayTesting", "Gateway", "Automation", "HomeModel", "JSON", "Mappings", "Persistence"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "Gateway", "GatewayCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPAPITests",
            dependencies: [
                "HTTPAPI", "GatewayCore", "GatewayTesting", "HomeModel", "JSON",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // The event stream's fan-out on test channels (EventFanOutTests).
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MappingsTests",
            dependencies: ["Mappings", "HomeModel", "JSON"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "GatewayCore", "GatewayTesting", "Mosquitto", "MosquittoTesting", "Secrets", "HomeModel", "JSON", "Mappings",
                "Simulator",
                "Automation", "Persistence",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HAPTests",
            dependencies: [
                "HAP", .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
                .product(name: "BigInt", package: "BigInt"),
                // A controller's side of a connection (TestController).
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ], resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(name: "HAPQRCodeTests", dependencies: ["HAPQRCode"], swiftSettings: swiftSettings),
        .testTarget(
            name: "HAPBridgeTests",
            dependencies: [
                "HAPBridge", "HAP", "Gateway", "GatewayCore", "GatewayTesting", "HomeModel", "JSON", "Mappings", "Secrets",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MatterBridgeTests", dependencies: ["MatterBridge", "Matter", "GatewayCore", "GatewayTesting", "HomeModel", "JSON"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "MatterTests",
            dependencies: [
                "Matter", .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),
    ])
)

/// The targets without the tests when Tests/ is missing: the container image builds from
/// Package.swift and Sources/ alone (.dockerignore leaves Tests/ out), and SwiftPM refuses a test
/// target whose folder is missing. Computed because a manifest has no declarative condition on the
/// files present.
func droppingMissingTests(_ targets: [Target]) -> [Target] {
    let hasTests = FileManager.default.fileExists(atPath: Context.packageDirectory + "/Tests")
    return targets.filter { hasTests || $0.type != .test }
}

/// Whether the build host's glibc is 2.36 or later, the first that loads packed relative relocations.
/// Computed because SwiftPM's conditions know the platform, not the C library's version.
var hostGlibcLoadsPackedRelocations: Bool {
    #if os(Linux)
    var buffer = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return false }
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let version = text.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    return version.count >= 2 && (version[0], version[1]) >= (2, 36)
    #else
    return false
    #endif
}
