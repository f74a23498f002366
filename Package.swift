// swift-tools-version:6.0
// widgetd — an encrypted widget timeline store for Linux.
//
// Dependencies point one way (docs/ARCHITECTURE.md):
//   C modules ← WidgetCrypto ← WidgetStore ← WidgetDaemon ← widgetd
//   WidgetModel and Varlink are pure (no I/O, no C) and used by both sides.
import PackageDescription

let package = Package(
    name: "widgetd",
    products: [
        .executable(name: "widgetd", targets: ["widgetd"]),
        .executable(name: "widgetctl", targets: ["widgetctl"]),
        .executable(name: "widgetd-bench", targets: ["widgetd-bench"]),
    ],
    dependencies: [
        // The command lines of widgetctl and widgetd: parsing, help, completion scripts.
        // Without network, scripts/setup points SwiftPM at a local mirror (README).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The daemon's logger: swift-log's Logger API, with our journal and stderr handlers
        // (1.12 is the first with LogEvent and the error argument, which they use).
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // Linux calls that Glibc does not export to Swift (epoll, prctl, mallopt, …).
        .target(name: "CSystemShims"),

        // Pure: a strict JSON reader and writer over raw bytes, for the hot paths.
        .target(name: "StrictJSON"),
        // Pure: the widget model, timeline validation and the presentation rules.
        .target(name: "WidgetModel", dependencies: ["StrictJSON"]),
        // Pure: Varlink framing, messages and the interface definitions.
        .target(name: "Varlink", dependencies: ["StrictJSON"]),
        // Typed libsodium: secure memory, AEAD, sealed boxes, Argon2id, BLAKE2b.
        .target(name: "WidgetCrypto", dependencies: ["CSodium", "CSystemShims"]),
        // Device key, keybag, class-key lifecycle, encrypted timeline files, cache.
        .target(name: "WidgetStore", dependencies: ["WidgetCrypto", "WidgetModel", "CSystemShims"]),
        // The daemon: event loop, Varlink server, authorization, config, systemd.
        .target(
            name: "WidgetDaemon",
            dependencies: [
                "WidgetStore", "WidgetModel", "Varlink", "StrictJSON", "CSystemd", "CSystemShims",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The client CLI's commands and rendering.
        .target(
            name: "WidgetControl",
            dependencies: [
                "WidgetModel", "StrictJSON", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // widgetd's own command line, apart from the daemon so that the fuzzers, which
        // build WidgetDaemon with swiftc, need no package.
        .target(
            name: "WidgetdCommand",
            dependencies: ["WidgetDaemon", .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // widgetd is also widgetctl when called by that name (its main.swift): the
        // package installs one binary and a link. widgetctl on its own is for
        // `swift run widgetctl` and the tests.
        .executableTarget(name: "widgetd", dependencies: ["WidgetdCommand", "WidgetControl"]),
        .executableTarget(name: "widgetctl", dependencies: ["WidgetControl"]),
        // The benchmark harness (docs/BENCHMARKS.md): widgetd beside redis-server,
        // SQLCipher and the floors, one client for all.
        .target(name: "Benchmarks", dependencies: ["WidgetStore", "WidgetModel", "WidgetCrypto", "CSystemShims", "StrictJSON", "Varlink"]),
        .executableTarget(name: "widgetd-bench", dependencies: ["Benchmarks"]),

        // For the tests only: starting programs with posix_spawn instead of Foundation's
        // Process (see ChildProcess.swift).
        .target(name: "TestSupport", dependencies: ["CSystemShims"], path: "Tests/TestSupport"),

        .testTarget(name: "WidgetModelTests", dependencies: ["WidgetModel", "StrictJSON"]),
        .testTarget(name: "VarlinkTests", dependencies: ["Varlink", "TestSupport"]),
        .testTarget(name: "WidgetCryptoTests", dependencies: ["WidgetCrypto"]),
        .testTarget(name: "WidgetStoreTests", dependencies: ["WidgetStore", "WidgetCrypto", "WidgetModel"]),
        .testTarget(
            name: "WidgetDaemonTests",
            dependencies: [
                "WidgetDaemon", "WidgetStore", "WidgetCrypto", "WidgetModel", "Varlink", "StrictJSON", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // WidgetdCommand too: one suite checks both programs' completion scripts and manuals.
        .testTarget(
            name: "WidgetControlTests",
            dependencies: [
                "WidgetControl", "WidgetModel", "WidgetdCommand", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "WidgetdCommandTests", dependencies: ["WidgetdCommand", "WidgetDaemon"]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks"]),
        .testTarget(
            name: "IntegrationTests",
            // CSystemd: the fake logind the session tests put on a private bus.
            dependencies: ["Varlink", "WidgetModel", "CSystemShims", "CSystemd", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
