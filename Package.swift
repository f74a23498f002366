// swift-tools-version:6.0
// widgetd — an encrypted widget timeline store for Linux.
//
// Dependencies point one way (docs/ARCHITECTURE.md):
//   C modules ← WidgetdPOSIX ← StoreAnchor ← StoreFiles ← StoreLedger, StoreKeys ← WidgetStore ← WidgetDaemon ← widgetd
//   CSodium ← SecureMemory ← WidgetCrypto ← WidgetStore, WidgetTPM
//   Varlink, WidgetdPOSIX, SecureMemory ← VarlinkTransport ← WidgetDaemon
//   WidgetModel, Varlink and WidgetdWire are pure (no I/O, no C) and used by both sides.
//   WidgetdWire ← WidgetdClient ← WidgetControl ← widgetctl: the CLI on the client library.
import PackageDescription

let package = Package(
    name: "widgetd",
    products: [
        .executable(name: "widgetd", targets: ["widgetd"]),
        .executable(name: "widgetctl", targets: ["widgetctl"]),
        .executable(name: "widgetd-bench", targets: ["widgetd-bench"]),
        // For Swift hosts and providers: every method as async throws, and the provider
        // layer in WidgetKit's names (DESIGN §10).
        .library(name: "WidgetdClient", targets: ["WidgetdClient", "WidgetdKit"]),
    ],
    dependencies: [
        // The command lines of widgetctl and widgetd: parsing, help, completion scripts.
        // Without network, scripts/setup points SwiftPM at a local mirror (README).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The daemon's logger: swift-log's Logger API, with our journal and stderr handlers
        // (1.12 is the first with LogEvent and the error argument, which they use).
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
        // Measured against our own timer heap, call queue and syscall types (widgetd-bench
        // --only containers; docs/ARCHITECTURE.md, "Packages we use"): the benchmark
        // imports them for that comparison.
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // C libraries from Debian, through pkg-config.
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(
            name: "CTPM2", pkgConfig: "tss2-esys",
            providers: [.apt(["libtss2-dev"])]),
        // Linux calls that Glibc does not export to Swift (epoll, prctl, mallopt, …).
        .target(name: "CSystemShims"),

        // Pure: a strict JSON reader and writer over raw bytes, for the hot paths.
        .target(name: "StrictJSON"),
        // Pure: the widget model, timeline validation and the presentation rules.
        .target(name: "WidgetModel", dependencies: ["StrictJSON"]),
        // Pure: Varlink framing, messages and org.varlink.service.
        .target(name: "Varlink", dependencies: ["StrictJSON"]),
        // Pure: widgetd's wire contract: method and error names, parameter and reply
        // types, the io.widgetd interface definitions and GetInfo's data.
        .target(name: "WidgetdWire", dependencies: ["Varlink", "WidgetModel"]),
        // The POSIX layer, apart from the service (swift-nio's NIOPosix in spirit): one
        // syscall file (FileDescriptor, Errno, one helper), the event loop and its timer
        // heap, the Unix listener, signals, systemd, peer credentials, process hygiene.
        .target(name: "WidgetdPOSIX", dependencies: ["CSystemShims", "CSystemd"]),
        // Secure memory for secrets (sodium_malloc'd, locked, zeroed): SecureBytes, the
        // region cache and the locked-memory count. No cryptography, so the transport
        // can hold replies in it without the crypto layer.
        .target(name: "SecureMemory", dependencies: ["CSodium"]),
        // Typed libsodium: AEAD, sealed boxes, Argon2id, BLAKE2b, over SecureMemory.
        .target(name: "WidgetCrypto", dependencies: ["CSodium", "SecureMemory"]),
        // The Varlink server, knowing nothing of the model or of io.widgetd: connections,
        // call contexts, limits, the shared input budget, the connection lifecycle, the
        // unsent-output buffer (secure memory, opaque tags) and the event log API. Above
        // SecureMemory for SecureBytes, so not in WidgetdPOSIX, which stays free of
        // libsodium and of Varlink.
        .target(
            name: "VarlinkTransport",
            dependencies: ["Varlink", "StrictJSON", "WidgetdPOSIX", "SecureMemory", .product(name: "Logging", package: "swift-log")]),
        // The store, in five targets whose dependencies point one way, so that the
        // compiler keeps its walls (docs/ARCHITECTURE.md, "Modules"):
        //   StoreAnchor ← StoreFiles ← StoreLedger, StoreKeys ← WidgetStore
        // The rollback anchor: the counter outside the state directory (a TPM's NV index)
        // that the keybag and the ledger are both anchored to.
        .target(name: "StoreAnchor", dependencies: ["WidgetdPOSIX"]),
        // The state directory's file system calls, binary coding and the files' error.
        .target(name: "StoreFiles", dependencies: ["StoreAnchor", "SecureMemory", "WidgetCrypto", "WidgetdPOSIX"]),
        // The timeline file format, the write-ahead journal, the generation ledger and its fold.
        .target(name: "StoreLedger", dependencies: ["StoreAnchor", "StoreFiles", "SecureMemory", "WidgetCrypto", "WidgetModel", "WidgetdPOSIX"]),
        // The device key, the keybag, passcodes and the class keys' lifecycle.
        .target(name: "StoreKeys", dependencies: ["StoreAnchor", "StoreFiles", "SecureMemory", "WidgetCrypto", "WidgetModel", "WidgetdPOSIX"]),
        // The timelines on top, and the two faces the daemon sees: the device's and the
        // timelines' (`StoreDeviceFace`, `StoreTimelinesFace`).
        .target(
            name: "WidgetStore",
            dependencies: ["StoreAnchor", "StoreFiles", "StoreLedger", "StoreKeys", "SecureMemory", "WidgetCrypto", "WidgetModel", "WidgetdPOSIX"]),
        // Typed TPM2 through tpm2-tss's ESAPI: sealed blobs, the passcode tangle, the NV counter.
        .target(name: "WidgetTPM", dependencies: ["CTPM2", "SecureMemory", "WidgetCrypto"]),
        // The daemon: event loop, Varlink server, authorization, config, systemd.
        .target(
            name: "WidgetDaemon",
            dependencies: [
                "WidgetStore", "StoreKeys", "StoreLedger", "StoreAnchor", "WidgetdPOSIX", "SecureMemory", "WidgetCrypto", "WidgetModel", "Varlink",
                "VarlinkTransport", "WidgetdWire", "StrictJSON", "CSystemd", "CSystemShims",
                // KeyProtection=tpm2: the TPM's device-key source, plugged into the store here.
                "WidgetTPM",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The Swift client library (no libsodium): calls, streams, typed errors, passcodes
        // in zeroed memory; and on it the WidgetKit-shaped provider layer.
        .target(name: "WidgetdClient", dependencies: ["WidgetdWire", "Varlink", "WidgetModel", "StrictJSON"]),
        .target(name: "WidgetdKit", dependencies: ["WidgetdClient", "WidgetdWire", "WidgetModel"]),
        // examples/swift-provider: a weather provider written with the library (CI runs it).
        .executableTarget(name: "example-provider", dependencies: ["WidgetdKit"], path: "examples/swift-provider"),
        // The client CLI's commands and rendering, on the client library's socket.
        .target(
            name: "WidgetControl",
            dependencies: [
                "WidgetModel", "StrictJSON", "Varlink", "WidgetdWire", "WidgetdClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        .target(
            name: "Benchmarks",
            dependencies: [
                "WidgetStore", "StoreKeys", "WidgetdPOSIX", "WidgetModel", "SecureMemory", "CSystemShims", "StrictJSON", "Varlink", "WidgetdWire",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .executableTarget(name: "widgetd-bench", dependencies: ["Benchmarks"]),

        // For the tests only: starting programs with posix_spawn instead of Foundation's
        // Process (see ChildProcess.swift).
        .target(name: "TestSupport", dependencies: ["CSystemShims"], path: "Tests/TestSupport"),

        .testTarget(name: "WidgetModelTests", dependencies: ["WidgetModel", "StrictJSON"]),
        .testTarget(name: "VarlinkTests", dependencies: ["Varlink", "TestSupport"]),
        .testTarget(name: "WidgetdWireTests", dependencies: ["WidgetdWire", "Varlink", "TestSupport"]),
        .testTarget(name: "SecureMemoryTests", dependencies: ["SecureMemory"]),
        .testTarget(name: "WidgetCryptoTests", dependencies: ["WidgetCrypto", "SecureMemory"]),
        .testTarget(name: "WidgetTPMTests", dependencies: ["WidgetTPM", "SecureMemory", "TestSupport"]),
        .testTarget(name: "WidgetdPOSIXTests", dependencies: ["WidgetdPOSIX", "TestSupport"]),
        // WidgetdWire: the server's tests serve widgetd's own interfaces.
        .testTarget(
            name: "VarlinkTransportTests",
            dependencies: [
                "VarlinkTransport", "Varlink", "WidgetdPOSIX", "WidgetdWire", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "WidgetStoreTests",
            dependencies: ["WidgetStore", "StoreKeys", "StoreLedger", "StoreFiles", "StoreAnchor", "SecureMemory", "WidgetCrypto", "WidgetModel", "WidgetdPOSIX"]),
        .testTarget(
            name: "WidgetDaemonTests",
            dependencies: [
                "WidgetDaemon", "WidgetStore", "StoreKeys", "StoreLedger", "StoreFiles", "StoreAnchor", "SecureMemory", "WidgetCrypto", "WidgetModel", "Varlink", "VarlinkTransport", "WidgetdWire", "WidgetdPOSIX", "TestSupport",
                // The TPM2 passcode verifier's tests read the TPM's dictionary-attack state.
                "WidgetTPM",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // WidgetdCommand too: one suite checks both programs' completion scripts and manuals.
        .testTarget(
            name: "WidgetControlTests",
            dependencies: [
                "WidgetControl", "WidgetModel", "WidgetdWire", "WidgetdClient", "WidgetdCommand", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "WidgetdCommandTests", dependencies: ["WidgetdCommand", "WidgetDaemon"]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks"]),
        .testTarget(name: "WidgetdClientTests", dependencies: ["WidgetdClient", "WidgetdKit", "WidgetdWire", "WidgetModel"]),
        .testTarget(
            name: "IntegrationTests",
            // CSystemd: the fake logind the session tests put on a private bus.
            dependencies: ["WidgetModel", "CSystemd", "TestSupport", "WidgetdKit", "WidgetdWire"]),
    ],
    swiftLanguageModes: [.v6]
)
