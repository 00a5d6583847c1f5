// swift-tools-version:5.4
// The libFuzzer executables: a package of its own, so the fuzzer's flags never reach the normal build.
// Build and run them with scripts/fuzz.sh.
//
// 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's entry point and links `main` to it,
// which `-parse-as-library` leaves undefined; at 5.4 the `main` that links is libFuzzer's own.
import PackageDescription

let targets = [
    "json", "z2m-state", "z2m-devices", "z2m-groups", "topic", "mapping-file", "request", "import",
    "matter-tlv", "matter-message", "matter-certificate", "matter-interaction", "matter-bridge",
]

let package = Package(
    name: "homegate-fuzz",
    products: targets.map { .executable(name: "fuzz-\($0)", targets: ["fuzz-\($0)"]) },
    dependencies: [.package(name: "homegate", path: "..")],
    targets: targets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: [.product(name: "FuzzTargets", package: "homegate")])
    }
)
