import Foundation
import SecureMemory
import Testing
import WidgetCrypto
import WidgetModel
@testable import StoreAnchor
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// A rollback counter in memory (the TPM's NV counter stands behind the same protocol):
/// counts its increments, and can fail the next one after the file was written (a crash
/// between the two), fail altogether, or be set back (a counter reset).
final class FakeRollbackCounter: RollbackCounter, @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    private var increments = 0
    private var failNext = false
    private var broken = false

    func read() throws(AnchorError) -> UInt64 {
        try locked { () throws(AnchorError) in
            if broken { throw .rollbackCounter(reason: "broken") }
            return value
        }
    }

    func increment() throws(AnchorError) -> UInt64 {
        try locked { () throws(AnchorError) in
            if broken { throw .rollbackCounter(reason: "broken") }
            if failNext {
                failNext = false
                throw .rollbackCounter(reason: "cut short")
            }
            value += 1
            increments += 1
            return value
        }
    }

    var incrementCount: Int { lock.withLock { increments } }
    var current: UInt64 { lock.withLock { value } }
    func failNextIncrement() { lock.withLock { failNext = true } }
    func breakDown() { lock.withLock { broken = true } }
    func setBack(by steps: UInt64) { lock.withLock { value -= steps } }

    private func locked<T>(_ body: () throws(AnchorError) -> T) throws(AnchorError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// DESIGN §9's rollback counter: the keybag and the catalog carry its value, each keybag
/// change and each fold is written first and then counted, and an older copy of either
/// is refused at open. The store half, over an in-memory counter; the TPM half is in
/// WidgetDaemonTests (`TPM2RollbackTests`).
@Suite struct RollbackCounterTests {
    private func open(
        _ f: Fixture, _ counter: FakeRollbackCounter?, journalCapacity: Int = Fixture.journalCapacity
    ) throws -> TimelineStore {
        try TimelineStore(
            stateDirectory: f.state, deviceKeySource: FileDeviceKeySource(stateDirectory: f.state, credentialsDirectory: nil),
            rollbackCounter: counter, configuration: .test, journalCapacity: journalCapacity, journalFolding: .atOnce, now: t0)
    }

    private func keybagPath(_ f: Fixture) -> String { "\(f.state)/\(Keybag.fileName)" }
    private func ledgerPath(_ f: Fixture) -> String { "\(f.state)/\(GenerationLedger.fileName)" }
    private func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    private func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// The file a `rolledBack` start error names ("KEYBAG or CATALOG" when both are
    /// behind the counter); records an issue for anything else.
    private func rolledBack(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            try body()
            Issue.record("expected rolledBack, the store opened", sourceLocation: sourceLocation)
        } catch StoreError.rolledBack(let file, _, _) {
            return file
        } catch {
            Issue.record("expected rolledBack, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    private func failUnlock(_ store: TimelineStore) {
        #expect(throws: StoreError.self) { try store.unlock(passcode: secure("wrong"), now: .at(t0)) }
    }

    @Test func keybagRestoredFromBeforeAFailedAttemptIsRefusedAndTheCountSurvives() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try open(f, counter).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let beforeFailure = try read(keybagPath(f))
        do {
            let store = try open(f, counter)
            failUnlock(store)
            #expect(store.failedAttempts == 1)
        }
        let afterFailure = try read(keybagPath(f))

        try write(beforeFailure, to: keybagPath(f))
        #expect(rolledBack { _ = try open(f, counter) }?.contains(keybagPath(f)) == true)
        // Refused, not reset: the newest keybag put back opens with the attempt counted.
        try write(afterFailure, to: keybagPath(f))
        let store = try open(f, counter)
        #expect(store.failedAttempts == 1)
        #expect(store.isRollbackAnchored)
    }

    @Test func keybagRestoredBehindANewerLedgerIsRefusedByWhatTheLedgerRecords() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try open(f, counter).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let beforeFailure = try read(keybagPath(f))
        do {
            let store = try open(f, counter)
            failUnlock(store)
            // Then a fold: the catalog is anchored last, and records the keybag's anchor.
            try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("d"), placeholder: nil)
            try store.foldJournal()
        }
        try write(beforeFailure, to: keybagPath(f))
        #expect(rolledBack { _ = try open(f, counter) } == keybagPath(f))
    }

    @Test func keybagRestoredFromBeforeThePasscodeWasSetIsRefused() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try open(f, counter).putTimeline(
            widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("a"), placeholder: nil)
        let withoutPasscode = try read(keybagPath(f))
        try open(f, counter).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        try write(withoutPasscode, to: keybagPath(f))
        #expect(rolledBack { _ = try open(f, counter) }?.contains(keybagPath(f)) == true)
    }

    @Test func ledgerRestoredFromBeforeAFoldIsRefused() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        do {
            let store = try open(f, counter)
            try store.putTimeline(widgetA, protectionClass: .none, family: nil, reloadDue: nil, body: secure("1"), placeholder: nil)
            try store.foldJournal()
        }
        let firstFold = try read(ledgerPath(f))
        do {
            let store = try open(f, counter)
            try store.putTimeline(widgetA, protectionClass: .none, family: nil, reloadDue: nil, body: secure("2"), placeholder: nil)
            try store.foldJournal()
        }
        try write(firstFold, to: ledgerPath(f))
        #expect(rolledBack { _ = try open(f, counter) }?.contains(ledgerPath(f)) == true)
    }

    @Test func wholeStateDirectoryRestoredIsRefused() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try open(f, counter).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let backup = "\(f.root)/backup"
        try FileManager.default.copyItem(atPath: f.state, toPath: backup)
        failUnlock(try open(f, counter))
        try FileManager.default.removeItem(atPath: f.state)
        try FileManager.default.copyItem(atPath: backup, toPath: f.state)
        #expect(rolledBack { _ = try open(f, counter) } != nil)
    }

    @Test func anchorCutShortBeforeTheIncrementIsAcceptedExactlyOnce() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try open(f, counter).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let predecessor = try read(keybagPath(f))
        do {
            let store = try open(f, counter)
            counter.failNextIncrement()
            // The keybag is written first, then the increment fails (as a crash there):
            // the attempt is counted all the same.
            #expect(throws: StoreError.rollbackCounter(reason: "cut short")) {
                try store.unlock(passcode: secure("wrong"), now: .at(t0))
            }
            #expect(store.failedAttempts == 1)
        }
        let reached = counter.current + 1
        do {
            let store = try open(f, counter)
            #expect(store.openReport.caughtUpRollbackCounter == reached)
            #expect(counter.current == reached)
            #expect(store.failedAttempts == 1)
        }
        #expect(try open(f, counter).openReport.caughtUpRollbackCounter == nil)
        // Once caught up, the keybag before the interrupted write is as old as any other.
        try write(predecessor, to: keybagPath(f))
        #expect(rolledBack { _ = try open(f, counter) }?.contains(keybagPath(f)) == true)
    }

    @Test(arguments: [Fixture.journalCapacity, 0])
    func counterIsIncrementedPerFoldNeverPerTimelineWrite(journalCapacity: Int) throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        let store = try open(f, counter, journalCapacity: journalCapacity)
        let start = counter.incrementCount
        for n in 0..<40 {
            try store.putTimeline(
                widget("com.example.w/\(n % 4)"), protectionClass: .none, family: nil, reloadDue: nil, body: secure("\(n)"),
                placeholder: nil)
        }
        #expect(counter.incrementCount == start)
        try store.deleteTimeline(widget("com.example.w/3"))
        #expect(counter.incrementCount <= start + 1, "a delete saves the catalog unanchored: no increment of its own")
        try store.foldJournal()
        let afterStop = counter.incrementCount
        #expect(afterStop >= start + 1 && afterStop <= start + 2)
        // A stop with nothing new anchors nothing.
        try store.foldJournal()
        #expect(counter.incrementCount == afterStop)
    }

    @Test func failingCounterIsAStartError() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        _ = try open(f, counter)
        counter.breakDown()
        #expect(throws: StoreError.rollbackCounter(reason: "broken")) { _ = try open(f, counter) }
    }

    @Test func counterBehindTheFilesIsAStartError() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try open(f, counter).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        counter.setBack(by: 2)
        let error = #expect(throws: StoreError.self) { _ = try open(f, counter) }
        guard case .rollbackCounter = error else { Issue.record("expected rollbackCounter, got \(String(describing: error))"); return }
    }

    @Test func wipeIncrementsTheCounterAndNothingFromBeforeOpens() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        let store = try open(f, counter)
        try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let backup = "\(f.root)/backup"
        try FileManager.default.copyItem(atPath: f.state, toPath: backup)
        let before = counter.current
        try store.wipe()
        // One for the wipe, one for the new store's keybag and catalog.
        #expect(counter.current == before + 2)
        _ = consume store
        for name in [Keybag.fileName, GenerationLedger.fileName, "device.key"] {
            try write(try read("\(backup)/\(name)"), to: "\(f.state)/\(name)")
        }
        #expect(rolledBack { _ = try open(f, counter) } != nil)
    }

    /// A tpm2 store wiped under a version that anchored nothing, then made again: its
    /// files carry no anchor while the counter moved on. Refused as rolled back by
    /// default (a restored copy from before anchors looks the same); `--start-over`
    /// opens it unanchored, and the first unlock with its passcode anchors it.
    @Test func unanchoredFilesOnAMovedCounterAreAnchoredByStartOverAndThePasscode() throws {
        let f = Fixture()
        let widget = widgetD
        do {
            let store = try open(f, nil)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            try store.putTimeline(widget, protectionClass: .none, family: nil, reloadDue: nil, body: secure("d"), placeholder: nil)
            try store.foldJournal()
        }
        let counter = FakeRollbackCounter()
        for _ in 0..<5 { _ = try counter.increment() }
        #expect(rolledBack { _ = try open(f, counter) } != nil)
        let store = try TimelineStore(
            stateDirectory: f.state, deviceKeySource: FileDeviceKeySource(stateDirectory: f.state, credentialsDirectory: nil),
            rollbackCounter: counter, configuration: .test, journalCapacity: Fixture.journalCapacity, journalFolding: .atOnce, startOver: true, now: t0)
        #expect(store.awaitingPasscodeToAnchor)
        #expect(store.openReport.awaitingPasscodeToAnchor)
        // A wrong passcode proves nothing: counted, and nothing anchored.
        failUnlock(store)
        #expect(counter.current == 5)
        #expect(store.custody.keybag.anchors == .none)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(!store.awaitingPasscodeToAnchor)
        #expect(store.openReport.awaitingPasscodeToAnchor, "the open's report stays as the open left it")
        #expect(counter.current == 6)
        #expect(store.custody.keybag.anchors.keybag == 6)
        _ = consume store
        // Anchored: opens without --start-over, the data intact.
        let reopened = try open(f, counter)
        #expect(text(try reopened.readBody(widget, allowOpenClassB: false)) == "d")
    }

    @Test func softwareModeAnchorsNothingAndARestoredKeybagStillOpens() throws {
        let f = Fixture()
        try open(f, nil).setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        let beforeFailure = try read(keybagPath(f))
        failUnlock(try open(f, nil))
        try write(beforeFailure, to: keybagPath(f))
        // The limit SECURITY.md states for software mode: without a counter outside
        // the directory, the restored keybag's count is the count.
        let store = try open(f, nil)
        #expect(store.failedAttempts == 0)
        #expect(!store.isRollbackAnchored)
        #expect(store.openReport.caughtUpRollbackCounter == nil)
        #expect(store.custody.keybag.anchors == .none)
    }

    @Test func keybagAndLedgerOfThePreviousFormatsOpenInSoftwareMode() throws {
        let f = Fixture()
        let macs: (keybag: SecureBytes, catalog: SecureBytes)
        do {
            let store = try open(f, nil)
            try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("d"), placeholder: nil)
            try store.foldJournal()
            macs = (try store.custody.subkeys.keybagMAC.copy(), try store.custody.subkeys.ledgerMAC.copy())
        }
        // Keybag version 2 and catalog version 1: the same without the tangle's 5 bytes
        // (presence 0, an empty block), the 16 bytes of anchors and the empty binding
        // block's 4, and without the catalog's log and base.
        var keybag = Array(try read(keybagPath(f)).dropLast(32))
        #expect(keybag.suffix(25) == [UInt8](repeating: 0, count: 25))
        keybag.removeLast(25)
        keybag[4] = Keybag.version2
        try write(keybag + mac(keybag, macs.keybag), to: keybagPath(f))
        // Version 1: one file of entries under one MAC, none here (the catalog's own
        // tests read its entries), and no anchors.
        let catalog = Array("WCAT".utf8) + [1, 0, 0, 0, 0]
        try write(catalog + mac(catalog, macs.catalog), to: ledgerPath(f))
        try? FileManager.default.removeItem(atPath: "\(f.state)/\(GenerationLedger.logFileName)")
        let store = try open(f, nil)
        #expect(text(try store.readBody(widgetD, allowOpenClassB: false)) == "d")
    }

    private func mac(_ content: [UInt8], _ key: SecureBytes) throws -> [UInt8] {
        try KeyedHash.hash(content, key: key, outputLength: 32).withUnsafeBytes { Array($0) }
    }
}
