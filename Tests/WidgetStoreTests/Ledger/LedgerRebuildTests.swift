import Foundation
import Testing
import WidgetModel
@testable import StoreAnchor
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// A catalog lost alone (the keybag and the timeline files intact): refused at a plain
/// start, rebuilt from the files by `widgetd --start-over` once the passcode proves the
/// keybag, and until then nothing but placeholders served and nothing saved.
@Suite struct LedgerRebuildTests {
    private func ledgerPath(_ f: Fixture) -> String { "\(f.state)/\(GenerationLedger.fileName)" }
    private func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    private func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    private func open(_ f: Fixture, startOver: Bool, counter: FakeRollbackCounter? = nil) throws -> TimelineStore {
        try TimelineStore(
            stateDirectory: f.state, deviceKeySource: FileDeviceKeySource(stateDirectory: f.state, credentialsDirectory: nil),
            rollbackCounter: counter, configuration: .test, journalCapacity: Fixture.journalCapacity, journalFolding: .atOnce, startOver: startOver, now: t0)
    }

    private func put(_ store: TimelineStore, _ widget: WidgetID, _ body: String, _ c: ProtectionClass = .complete) throws {
        try store.putTimeline(widget, protectionClass: c, family: nil, reloadDue: nil, body: secure(body), placeholder: Array("ph \(body)".utf8))
    }

    /// A store with a passcode: widgetA at generation 2, widgetB and widgetD at 1, every
    /// write folded; then its catalog files removed. Returns widgetB's file path.
    @discardableResult
    private func storeWithoutLedger(_ f: Fixture, passcode: String? = "1234", counter: FakeRollbackCounter? = nil) throws -> String {
        let store = try open(f, startOver: false, counter: counter)
        if let passcode { try store.setPasscode(current: nil, new: secure(passcode), now: .at(t0)) }
        try put(store, widgetA, "a1")
        try put(store, widgetA, "a2")
        try put(store, widgetB, "b1", .completeUnlessOpen)
        try put(store, widgetD, "d1", .none)
        try store.foldJournal()
        let bPath = "\(f.timelines)/\(try store.timelines.fileName(for: widgetB))"
        try GenerationLedger.removeFiles(stateDirectory: f.state)
        return bPath
    }

    @Test func aLostLedgerIsAStartErrorThatNamesStartOver() throws {
        let f = Fixture()
        try storeWithoutLedger(f)
        #expect(throws: StoreError.ledgerMissing(path: ledgerPath(f))) { try open(f, startOver: false) }
        #expect(StoreError.ledgerMissing(path: ledgerPath(f)).description.contains("widgetd --start-over"))
    }

    @Test func beforeThePasscodeOnlyPlaceholdersAreServedAndNothingIsSaved() throws {
        let f = Fixture()
        try storeWithoutLedger(f)
        let before = try f.snapshot()
        let store = try open(f, startOver: true)
        #expect(store.awaitingPasscodeToRebuildLedger)
        // A wrong passcode rebuilds nothing, and is counted as usual.
        #expect(throws: StoreError.self) { try store.unlock(passcode: secure("wrong"), now: .at(t0)) }
        #expect(store.failedAttempts == 1)
        #expect(store.awaitingPasscodeToRebuildLedger)
        #expect(store.rebuiltLedger == nil)
        // Placeholders only: no body, not even class D, and no write, delete or save.
        #expect(try store.metadata(widgetA)?.placeholder == Array("ph a2".utf8))
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetD, allowOpenClassB: true) }
        #expect(throws: StoreError.protectedDataUnavailable) { try put(store, widgetC, "c1", .none) }
        #expect(throws: StoreError.protectedDataUnavailable) { try store.deleteTimeline(widgetA) }
        try store.foldJournal()
        #expect(!FileManager.default.fileExists(atPath: ledgerPath(f)))
        let after = try f.snapshot()
        #expect(Set(after.keys).subtracting([Keybag.fileName]) == Set(before.keys).subtracting([Keybag.fileName]))
        for (name, file) in before where name != Keybag.fileName { #expect(after[name]?.bytes == file.bytes, "\(name)") }
    }

    @Test func theRightPasscodeRebuildsTheLedgerFromTheFilesLeavingADamagedOneOut() throws {
        let f = Fixture()
        let bPath = try storeWithoutLedger(f)
        var damaged = try read(bPath)
        damaged[damaged.count - 1] ^= 1  // the body's tag: its header and placeholder still verify
        try write(damaged, to: bPath)
        let store = try open(f, startOver: true)
        #expect(store.openReport == OpenReport.waitingToRebuild)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(!store.awaitingPasscodeToRebuildLedger)
        // The report keeps what the open left; the rebuild at the unlock is told apart.
        #expect(store.openReport == OpenReport.waitingToRebuild)
        #expect(store.rebuiltLedger == LedgerRebuild(restored: 2, excluded: [(bPath as NSString).lastPathComponent]))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "a2")
        #expect(try store.metadata(widgetA)?.generation == 2)
        #expect(text(try store.readBody(widgetD, allowOpenClassB: false)) == "d1")
        // Left out, never trusted: it is no widget's, and a new write numbers above it.
        #expect(try store.metadata(widgetB) == nil)
        #expect(throws: StoreError.widgetNotFound) { try store.readBody(widgetB, allowOpenClassB: true) }
        try put(store, widgetA, "a3")
        try store.foldJournal()
        _ = consume store
        // Saved: a plain start opens it, every generation as rebuilt.
        let reopened = try open(f, startOver: false)
        try reopened.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(try reopened.metadata(widgetA)?.generation == 3)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == "a3")
        #expect(try reopened.listTimelines().map(\.widget) == [widgetA, widgetD].sorted())
    }

    @Test func withoutAPasscodeTheLedgerIsRebuiltAtOnce() throws {
        let f = Fixture()
        try storeWithoutLedger(f, passcode: nil)
        let store = try open(f, startOver: true)
        #expect(!store.awaitingPasscodeToRebuildLedger)
        #expect(store.rebuiltLedger == LedgerRebuild(restored: 3, excluded: []))
        var rebuiltAtOpen = OpenReport()
        rebuiltAtOpen.rebuiltLedger = LedgerRebuild(restored: 3, excluded: [])
        #expect(store.openReport == rebuiltAtOpen)
        #expect(text(try store.readBody(widgetB, allowOpenClassB: false)) == "b1")
        #expect(FileManager.default.fileExists(atPath: ledgerPath(f)))
    }

    @Test func aTPM2StoreRebuildsAndAnchorsItsLedgerOnceThePasscodeProvesTheKeybag() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try storeWithoutLedger(f, counter: counter)
        let reached = counter.current
        let store = try open(f, startOver: true, counter: counter)
        #expect(store.awaitingPasscodeToRebuildLedger)
        #expect(throws: StoreError.self) { try store.unlock(passcode: secure("wrong"), now: .at(t0)) }
        #expect(counter.current == reached)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(counter.current == reached + 1)
        #expect(store.custody.keybag.anchors == AnchorValues(keybag: reached + 1, catalog: reached + 1))
        _ = consume store
        let reopened = try open(f, startOver: false, counter: counter)
        try reopened.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == "a2")
    }

    @Test func aWipeWhileAwaitingThePasscodeMakesAStoreAnchoredFromTheStart() throws {
        let f = Fixture()
        let counter = FakeRollbackCounter()
        try storeWithoutLedger(f, counter: counter)
        let store = try open(f, startOver: true, counter: counter)
        #expect(store.awaitingPasscodeToRebuildLedger)
        try store.wipe()
        #expect(!store.awaitingPasscodeToRebuildLedger)
        #expect(!store.awaitingPasscodeToAnchor)
        let wiped = counter.current
        try put(store, widgetA, "new")
        try store.foldJournal()
        #expect(counter.current > wiped)
        _ = consume store
        #expect(text(try open(f, startOver: false, counter: counter).readBody(widgetA, allowOpenClassB: false)) == "new")
    }
}

extension OpenReport {
    /// An open that found the catalog lost and waits for the passcode to rebuild it.
    static var waitingToRebuild: OpenReport {
        var report = OpenReport()
        report.awaitingPasscodeToRebuildLedger = true
        return report
    }
}
