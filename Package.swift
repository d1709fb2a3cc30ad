import Foundation
// swift-tools-version: 6.1
// beacon-provision — keeps a fleet of BLE beacons configured and up to date. GPL-2.0-or-later.
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode (strict concurrency) is the package default.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
  name: "beacon-provision",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "beacon-provision", targets: ["beacon-provision"]),
    .executable(name: "provision-bench", targets: ["provision-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
  ],
  targets: [
    // MARK: C libraries (system-library targets over a local shim header; see each module.modulemap)
    .systemLibrary(name: "CBlueZ", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
    .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(name: "CPipe"),
    // PostgreSQL's reference client, for the journal several gateways share (docs/guide/several-gateways.md)
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

    // MARK: pure protocol code (no I/O)
    .target(name: "BeaconCore", swiftSettings: strict),
    // Threads of their own for blocking work (`OwnThread`, `SerialThread`): never libdispatch's workers.
    .target(name: "OwnThreads", swiftSettings: strict),
    // The one JSON parser, value type and writer, and the positioned error every file reader reports in.
    .target(name: "JSON", dependencies: ["BeaconCore"], swiftSettings: strict),
    .target(
      name: "KBeacon",
      dependencies: ["BeaconCore", "CCrypto", "JSON"],
      swiftSettings: strict),
    .target(
      name: "NordicDFU",
      dependencies: ["BeaconCore", "CCrypto", "JSON"],
      swiftSettings: strict),

    // Text-stream ("virtual serial") devices: Tertium TxRx profiles, Nordic UART (docs/protocols/text-stream.md)
    .target(name: "TextStream", dependencies: ["BeaconCore"], swiftSettings: strict),

    .target(name: "Profiles", dependencies: ["BeaconCore", "JSON", "KBeacon"], swiftSettings: strict),
    .target(name: "Audit", dependencies: ["BeaconCore", "JSON", "Profiles"], swiftSettings: strict),
    .target(name: "Presence", dependencies: ["BeaconCore", "JSON", "Profiles"], swiftSettings: strict),
    .target(name: "Firmware", dependencies: ["BeaconCore", "JSON", "Profiles"], swiftSettings: strict),
    // blukii Info Manager: request shapes, answers, the resolve state machine and its cache (docs/protocols/info-manager.md)
    .target(name: "InfoManager", dependencies: ["BeaconCore", "JSON", "Profiles"], swiftSettings: strict),

    // MARK: orchestration (journal in SQLite through GRDB)
    .target(
      name: "Fleet",
      dependencies: [
        "BeaconCore", "JSON", "KBeacon", "NordicDFU", "OwnThreads", "Profiles", "TextStream",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      swiftSettings: strict),

    // MARK: live edges
    // The journal on a PostgreSQL server through libpq, shared by several gateways
    .target(
      name: "FleetIO", dependencies: ["BeaconCore", "Fleet", "CLibPQ", "JSON", "OwnThreads"],
      swiftSettings: strict),
    .target(name: "NordicDFUIO", dependencies: ["NordicDFU", "CZip", "CPipe", "OwnThreads"], swiftSettings: strict),
    .target(name: "BlueZ", dependencies: ["BeaconCore", "CBlueZ", "CPipe", "OwnThreads"], swiftSettings: strict),
    .target(
      name: "HTTP", dependencies: ["BeaconCore", "CCurl", "CPipe", "JSON", "OwnThreads"], swiftSettings: strict),
    .target(
      name: "InfoManagerIO", dependencies: ["BeaconCore", "HTTP", "InfoManager", "JSON", "OwnThreads"],
      swiftSettings: strict),
    // Loopback TCP ports for local servers (the tests' nginx, provision-bench http-download's)
    .target(name: "Loopback", swiftSettings: strict),
    // Prometheus counters and gauges and the small HTTP server of `--metrics` (/metrics, /healthz, /presence)
    .target(name: "Metrics", dependencies: ["OwnThreads"], swiftSettings: strict),
    .target(
      name: "FirmwareIO",
      dependencies: ["BeaconCore", "HTTP", "Firmware", "JSON", "NordicDFU", "NordicDFUIO", "Profiles", "OwnThreads"],
      swiftSettings: strict),
    .target(
      name: "Simulator",
      dependencies: ["BeaconCore", "BlueZ", "CCrypto", "JSON", "KBeacon", "NordicDFU", "NordicDFUIO", "TextStream"],
      swiftSettings: strict),

    // MARK: campaigns
    // Every fleet campaign's path, once: plan/apply/text commands, dfu update (package and
    // catalogue) and audit --connect through one scheduler; no ArgumentParser, no printing.
    .target(
      name: "CampaignPipeline",
      dependencies: [
        "BeaconCore", "HTTP", "Firmware", "FirmwareIO", "Fleet", "JSON", "KBeacon", "NordicDFU", "NordicDFUIO",
        "OwnThreads", "Profiles",
        "FleetIO", "TextStream",
      ],
      swiftSettings: strict),

    // MARK: the command line
    .target(
      name: "BeaconProvisionCLI",
      dependencies: [
        "BeaconCore", "BlueZ", "CampaignPipeline", "Fleet", "JSON", "KBeacon", "NordicDFU", "NordicDFUIO", "Profiles",
        "Simulator", "HTTP",
        "Firmware", "FirmwareIO", "Audit", "TextStream", "Presence", "FleetIO", "InfoManager",
        "InfoManagerIO", "Metrics",
        "OwnThreads", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        // --version asks each C library for its own version (Version/LibraryVersions.swift)
        "CCurl", "CZip", "CLibPQ", "CCrypto", .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      // scripts/package writes Version/BuildStamp.generated.swift (version, commit) and sets this variable
      swiftSettings: strict
        + (ProcessInfo.processInfo.environment["BEACON_PROVISION_STAMPED"] == "1"
          ? [.define("BEACON_PROVISION_STAMPED")] : [])),
    .executableTarget(name: "beacon-provision", dependencies: ["BeaconProvisionCLI"], swiftSettings: strict),
    .executableTarget(
      name: "provision-bench",
      dependencies: [
        "BeaconCore", "HTTP", "Fleet", "JSON", "KBeacon", "Loopback", "NordicDFU", "OwnThreads", "Profiles",
        "Simulator",
      ],
      swiftSettings: strict),

    // MARK: tests
    // Real servers on loopback (nginx, a private CA) shared by HTTPTests and CLITests; AuditTests
    // runs a real browser with its process helpers.
    .target(
      name: "TestServers", dependencies: ["CPipe", "HTTP", "Loopback", "OwnThreads"], path: "Tests/TestServers",
      exclude: ["InfoManager"],
      swiftSettings: strict),
    // A manual clock and a state signal for the test targets that drive timers.
    .target(name: "TestClocks", path: "Tests/TestClocks", swiftSettings: strict),
    .testTarget(name: "BeaconCoreTests", dependencies: ["BeaconCore", "TestClocks"], swiftSettings: strict),
    .testTarget(
      name: "TextStreamTests", dependencies: ["TextStream", "BeaconCore", "TestClocks"], swiftSettings: strict),
    .testTarget(
      name: "AuditTests", dependencies: ["Audit", "BeaconCore", "Profiles", "TestServers"], swiftSettings: strict),
    .testTarget(name: "ProfilesTests", dependencies: ["JSON", "Profiles"], swiftSettings: strict),
    .testTarget(name: "PresenceTests", dependencies: ["Presence", "BeaconCore", "Profiles"], swiftSettings: strict),
    .testTarget(
      name: "FleetTests",
      dependencies: [
        "Fleet", "JSON", "KBeacon", "OwnThreads", "Profiles", "TestClocks",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      swiftSettings: strict),
    .testTarget(
      name: "FleetIOTests", dependencies: ["FleetIO", "Fleet", "BeaconCore", "CLibPQ", "Profiles", "TestServers"],
      swiftSettings: strict),
    .testTarget(
      name: "HTTPTests", dependencies: ["HTTP", "TestServers"], exclude: ["Fixtures"], swiftSettings: strict),
    .testTarget(
      name: "FirmwareTests",
      dependencies: ["Firmware", "FirmwareIO", "HTTP", "JSON", "KBeacon", "NordicDFU", "OwnThreads", "Profiles"],
      swiftSettings: strict),
    .testTarget(
      name: "InfoManagerTests",
      dependencies: [
        "InfoManager", "InfoManagerIO", "HTTP", "BeaconCore", "JSON", "Simulator", "TestServers", "TestClocks",
      ],
      swiftSettings: strict),
    .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "OwnThreads"], swiftSettings: strict),
    .testTarget(name: "OwnThreadsTests", dependencies: ["OwnThreads"], swiftSettings: strict),
    .testTarget(name: "MetricsTests", dependencies: ["Metrics"], swiftSettings: strict),
    .testTarget(name: "KBeaconTests", dependencies: ["JSON", "KBeacon"], swiftSettings: strict),
    .testTarget(name: "JSONTests", dependencies: ["BeaconCore", "JSON"], swiftSettings: strict),
    .testTarget(
      name: "NordicDFUTests", dependencies: ["NordicDFU", "NordicDFUIO", "OwnThreads"], swiftSettings: strict),
    .testTarget(
      name: "SimulatorTests",
      dependencies: [
        "Simulator", "BlueZ", "JSON", "KBeacon", "NordicDFU", "NordicDFUIO", "TextStream", "TestServers",
      ],
      exclude: ["Fixtures"],
      swiftSettings: strict),
    .testTarget(
      name: "SystemLibraryTests", dependencies: ["CBlueZ", "CCurl", "CZip", "CCrypto", "BlueZ"], swiftSettings: strict),
    .testTarget(
      name: "CampaignPipelineTests",
      dependencies: [
        "CampaignPipeline", "BeaconCore", "Fleet", "KBeacon", "NordicDFU", "NordicDFUIO", "Profiles", "Simulator",
      ],
      swiftSettings: strict),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "BeaconProvisionCLI", "CampaignPipeline", "FirmwareIO", "InfoManager", "JSON", "NordicDFUIO", "OwnThreads",
        "Presence", "Simulator", "TestClocks", "TestServers", "FleetIO",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      exclude: ["Golden", "Fixtures"], swiftSettings: strict),
  ]
)

// MARK: fuzz targets (scripts/fuzz)
// Only when scripts/fuzz sets BEACON_PROVISION_FUZZ to libFuzzer's no-main runtime: a plain `swift build`
// never sees these targets. scripts/fuzz builds them in .build/asan, the AddressSanitizer build that
// scripts/sanitizers tests in, so one instrumented build serves both (see scripts/fuzz's header).
if let fuzzRuntime = ProcessInfo.processInfo.environment["BEACON_PROVISION_FUZZ"], !fuzzRuntime.isEmpty {
  package.targets.append(.target(name: "CFuzz", path: "Fuzz/CFuzz"))
  package.targets.append(
    .target(
      name: "FuzzSupport", dependencies: ["CFuzz"], path: "Fuzz/FuzzSupport", swiftSettings: strict))
  for (name, dependencies) in [
    ("fuzz-advertising", ["BeaconCore"]),
    ("fuzz-att", ["BeaconCore"]),
    ("fuzz-hci", ["BeaconCore"]),
    ("fuzz-mgmt", ["BeaconCore"]),
    ("fuzz-kbeacon-frame", ["KBeacon"]),
    ("fuzz-kbeacon-json", ["JSON", "KBeacon"]),
    ("fuzz-dfu-manifest", ["NordicDFU"]),
    ("fuzz-init-packet", ["NordicDFU"]),
    ("fuzz-dfu-zip", ["NordicDFU", "NordicDFUIO"]),
    ("fuzz-slip", ["NordicDFU"]),
    ("fuzz-profile", ["Profiles"]),
    ("fuzz-inventory", ["Profiles"]),
    ("fuzz-fleet-file", ["Simulator"]),
    ("fuzz-catalogue", ["Firmware", "Profiles"]),
    ("fuzz-http", ["BeaconCore", "HTTP"]),
    ("fuzz-events", ["Presence", "Profiles"]),
    ("fuzz-text-stream", ["TextStream", "Profiles"]),
    ("fuzz-info-manager", ["InfoManager"]),
    ("fuzz-postgres-url", ["FleetIO"]),
    ("fuzz-device-answer", ["KBeacon", "Profiles"]),
    ("fuzz-bootloader-name", ["BeaconCore", "NordicDFU"]),
  ] as [(String, [Target.Dependency])] {
    package.targets.append(
      .executableTarget(
        name: name, dependencies: dependencies + ["FuzzSupport"], path: "Fuzz/Targets/\(name)",
        swiftSettings: strict,
        // libFuzzer's runtime without its main (each harness's main calls LLVMFuzzerRunDriver), and the C++
        // library that runtime is written against.
        linkerSettings: [.unsafeFlags(["-Xlinker", fuzzRuntime, "-lstdc++"])]))
  }
}
