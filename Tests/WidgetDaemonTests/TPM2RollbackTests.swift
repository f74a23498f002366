import Foundation
import Glibc
import SecureMemory
import StoreKeys
import TestSupport
import Testing
import WidgetModel
import WidgetStore
import WidgetTPM
@testable import WidgetDaemon

/// `KeyProtection=tpm2`'s rollback counter (DESIGN §9) on a real TPM: the store over the
/// TPM-sealed device key and the TPM's NV counter, as the daemon wires them
/// (`DaemonRuntime.rollbackCounter(of:)`), one swtpm per test.
@Suite struct TPM2RollbackTests {
    /// One swtpm and one state directory in it; the TPM is opened once and shared by
    /// every store the test opens (swtpm serves one connection at a time).
    private final class TPMStore {
        let tpm: SwtpmServer
        let state: String
        let source: TPM2StoreDeviceKeySource

        init() throws {
            tpm = try SwtpmServer()
            state = "\(tpm.directory)/state"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            source = try Self.openSource(tcti: tpm.tcti, state: state)
        }

        /// Opens the TPM, retrying (bounded) while swtpm has bound its socket but does not listen yet.
        private static func openSource(tcti: String, state: String) throws -> TPM2StoreDeviceKeySource {
            for _ in 0..<500 {
                if let source = try? TPM2StoreDeviceKeySource.open(tcti: tcti, stateDirectory: state) { return source }
                usleep(10_000)
            }
            return try TPM2StoreDeviceKeySource.open(tcti: tcti, stateDirectory: state)
        }

        func open() throws -> TimelineStore {
            var configuration = StoreConfiguration()
            configuration.kdfCost = .minimum
            return try TimelineStore(
                stateDirectory: state, deviceKeySource: source, rollbackCounter: DaemonRuntime.rollbackCounter(of: source),
                configuration: configuration, journalCapacity: 64 << 10, journalFolding: .atOnce, now: Date(timeIntervalSince1970: 1_800_000_000))
        }

        var keybag: String { "\(state)/keybag" }
        var catalog: String { "\(state)/catalog" }
        func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
        func write(_ data: Data, to path: String) throws { try data.write(to: URL(fileURLWithPath: path)) }
    }

    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func secure(_ text: String) throws -> SecureBytes {
        try Array(text.utf8).withUnsafeBytes { try SecureBytes(copying: $0) }
    }

    private func isRolledBack(_ body: () throws -> Void) -> Bool {
        do { try body() } catch StoreError.rolledBack { return true } catch { Issue.record("expected rolledBack, got \(error)") }
        return false
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2RefusesAKeybagRestoredFromBeforeAFailedAttemptAndTheCountSurvivesARestart() throws {
        let t = try TPMStore()
        do {
            let store = try t.open()
            #expect(store.isRollbackAnchored)
            try store.setPasscode(current: nil, new: try secure("1234"), now: .at(now))
        }
        let beforeFailure = try t.read(t.keybag)
        do {
            let store = try t.open()
            #expect(throws: StoreError.self) { try store.unlock(passcode: try secure("0000"), now: .at(now)) }
            #expect(store.failedAttempts == 1)
        }
        let afterFailure = try t.read(t.keybag)
        try t.write(beforeFailure, to: t.keybag)
        #expect(isRolledBack { _ = try t.open() })
        try t.write(afterFailure, to: t.keybag)
        let store = try t.open()
        #expect(store.failedAttempts == 1)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2RefusesALedgerRestoredFromBeforeAFold() throws {
        let t = try TPMStore()
        let widget = try WidgetID("com.example.weather/forecast")
        do {
            let store = try t.open()
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: try secure("1"), placeholder: nil)
            try store.foldJournal()
        }
        let firstFold = try t.read(t.catalog)
        do {
            let store = try t.open()
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: try secure("2"), placeholder: nil)
            try store.foldJournal()
        }
        try t.write(firstFold, to: t.catalog)
        #expect(isRolledBack { _ = try t.open() })
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2CounterThatFailsIsAStartErrorNotAFallBack() throws {
        let tpm = try SwtpmServer()
        let state = "\(tpm.directory)/state"
        do {
            // Something else's index where the counter should be (the storage seed's
            // index stands in for it): the counter is unusable.
            let device = try Self.device(tpm.tcti, indices: .standard)
            _ = try device.seal(try SecureBytes.random(count: 32))
        }
        let misplaced = try Self.device(
            tpm.tcti, indices: TPM2Indices(counter: TPM2Indices.standard.storageSeed, storageSeed: 0x0180_5746))
        let error = #expect(throws: StoreError.self) {
            _ = try TimelineStore(
                stateDirectory: state, deviceKeySource: FileDeviceKeySource(stateDirectory: state, credentialsDirectory: nil),
                rollbackCounter: TPM2StoreRollbackCounter(device: misplaced), journalCapacity: 0, now: now)
        }
        guard case .rollbackCounter(let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("belongs to something else"), "\(reason)")
    }

    /// One store of several sharing one swtpm, in its own state directory, opened with
    /// its own connection and closed (connection too) when `body` returns: swtpm serves
    /// one connection at a time, as each instance has its own on a resource manager.
    private static func withInstance<T>(
        _ tpm: SwtpmServer, _ name: String, _ body: (TimelineStore, TPM2StoreDeviceKeySource) throws -> T
    ) throws -> T {
        let state = "\(tpm.directory)/\(name)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        var source: TPM2StoreDeviceKeySource?
        for _ in 0..<500 {
            source = try? TPM2StoreDeviceKeySource.open(tcti: tpm.tcti, stateDirectory: state)
            if source != nil { break }
            usleep(10_000)
        }
        let opened = try source ?? TPM2StoreDeviceKeySource.open(tcti: tpm.tcti, stateDirectory: state)
        var configuration = StoreConfiguration()
        configuration.kdfCost = .minimum
        let store = try TimelineStore(
            stateDirectory: state, deviceKeySource: opened, rollbackCounter: DaemonRuntime.rollbackCounter(of: opened),
            configuration: configuration, journalCapacity: 64 << 10, journalFolding: .atOnce, now: Date(timeIntervalSince1970: 1_800_000_000))
        return try body(store, opened)
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2InstancesOnOneTPMEachKeepTheirOwnCounterAndSeed() throws {
        let tpm = try SwtpmServer()
        let widget = try WidgetID("com.example.weather/forecast")
        let first = try Self.withInstance(tpm, "system") { store, source in
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: try secure("1"), placeholder: nil)
            try store.foldJournal()
            return source.sealed.device.indices
        }
        // The other instance's changes (a passcode, folds) move only its own counter.
        let second = try Self.withInstance(tpm, "user") { store, source in
            try store.setPasscode(current: nil, new: try secure("1234"), now: .at(now))
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: try secure("2"), placeholder: nil)
            try store.foldJournal()
            return source.sealed.device.indices
        }
        #expect(first != second)
        #expect(first != .standard && second != .standard)
        try Self.withInstance(tpm, "system") { store, source in
            #expect(source.sealed.device.indices == first)
            let body = try store.readBody(widget, allowOpenClassB: true)
            #expect(Self.text(body) == "1")
        }
        try Self.withInstance(tpm, "user") { store, _ in #expect(store.passcodeSet) }
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2WipeOfOneInstanceLeavesTheOtherOnTheSameTPMIntact() throws {
        let tpm = try SwtpmServer()
        let widget = try WidgetID("com.example.weather/forecast")
        try Self.withInstance(tpm, "system") { store, _ in
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: try secure("kept"), placeholder: nil)
            try store.foldJournal()
        }
        try Self.withInstance(tpm, "user") { store, _ in try store.wipe() }
        try Self.withInstance(tpm, "system") { store, _ in
            let body = try store.readBody(widget, allowOpenClassB: true)
            #expect(Self.text(body) == "kept")
        }
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2StoreIndicesRefuseAnyoneWithoutTheStoresAuthorization() throws {
        let tpm = try SwtpmServer()
        let widget = try WidgetID("com.example.weather/forecast")
        let indices = try Self.withInstance(tpm, "system") { store, source in
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: try secure("kept"), placeholder: nil)
            try store.foldJournal()
            return source.sealed.device.indices
        }
        let counter = "0x" + String(indices.counter, radix: 16), seed = "0x" + String(indices.storageSeed, radix: 16)
        // What any local user who may open the TPM device can send: the owner's (empty)
        // authorisation, or the index's own taken to be empty.
        for (tool, arguments) in [
            ("tpm2_nvundefine", [counter, "-C", "o"]), ("tpm2_nvundefine", [seed, "-C", "o"]),
            ("tpm2_nvincrement", [counter, "-C", "o"]), ("tpm2_nvincrement", [counter]),
            ("tpm2_nvread", [seed, "-C", "o", "-s", "32"]), ("tpm2_nvread", [seed, "-s", "32"]),
            ("tpm2_nvwrite", [seed, "-C", "o", "-i", "/dev/null"]),
        ] {
            let result = try Self.tpm2Tool(tpm, tool, arguments)
            #expect(result.status != 0, "\(tool) \(arguments.joined(separator: " ")) succeeded")
        }
        try Self.withInstance(tpm, "system") { store, _ in
            let body = try store.readBody(widget, allowOpenClassB: true)
            #expect(Self.text(body) == "kept")
        }
    }

    @Test(.enabled(if: SwtpmServer.isInstalled, "swtpm is not installed: apt-get install swtpm swtpm-tools"))
    func tpm2CounterRemovedWithPlatformAuthorizationIsAStartErrorAndNeverDefinedAgain() throws {
        let tpm = try SwtpmServer()
        let indices = try Self.withInstance(tpm, "system") { store, source in
            try store.setPasscode(current: nil, new: try secure("1234"), now: .at(now))
            return source.sealed.device.indices
        }
        // The one way left to remove it: the platform's authorisation and the policy
        // that TPM2_NV_UndefineSpaceSpecial satisfies.
        let counter = "0x" + String(indices.counter, radix: 16)
        let session = "\(tpm.directory)/session.ctx"
        for (tool, arguments) in [
            ("tpm2_startauthsession", ["--policy-session", "-S", session]),
            ("tpm2_policycommandcode", ["-S", session, "TPM2_CC_NV_UndefineSpaceSpecial"]),
            ("tpm2_nvundefine", [counter, "-C", "p", "-S", session]),
        ] {
            let result = try Self.tpm2Tool(tpm, tool, arguments)
            try #require(result.status == 0, "\(tool): \(result.error)")
        }
        let error = #expect(throws: StoreError.self) { try Self.withInstance(tpm, "system") { _, _ in } }
        guard case .rollbackCounter(let reason) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("is gone"), "\(reason)")
        let listed = try Self.tpm2Tool(tpm, "tpm2_getcap", ["handles-nv-index"])
        #expect(!listed.output.contains(counter), "\(listed.output)")
    }

    /// Runs one of tpm2-tools on `tpm` (while no store holds it: swtpm serves one connection).
    private static func tpm2Tool(_ tpm: SwtpmServer, _ tool: String, _ arguments: [String]) throws -> ChildProcess.Result {
        try ChildProcess.run("/usr/bin/\(tool)", arguments, environment: ["TPM2TOOLS_TCTI": tpm.tcti])
    }

    private static func text(_ body: SecureBytes) -> String {
        body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> String in String(decoding: raw, as: UTF8.self) }
    }

    /// Opens the TPM, retrying (bounded) while swtpm has bound its socket but does not
    /// listen yet, or still closes the previous connection.
    private static func device(_ tcti: String, indices: TPM2Indices) throws -> TPM2Device {
        for _ in 0..<500 {
            if let device = try? TPM2Device(tcti: tcti, indices: indices) { return device }
            usleep(10_000)
        }
        return try TPM2Device(tcti: tcti, indices: indices)
    }
}
