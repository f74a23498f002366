import Foundation
import Glibc
import Testing
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX
@testable import StoreAnchor
@testable import StoreFiles
@testable import StoreLedger
@testable import WidgetStore

/// The catalog's head carries each provider's usage by the files as folded, kept by
/// every change of them, so that the next start (orderly or after a crash) judges
/// quotas before it has read every file; a change it cannot judge leaves the usage
/// unknown, and writes with a quota complete the index first as before (fail closed).
@Suite struct UsageAtStartTests {
    static let provider = "com.example.clock"
    static func clock(_ n: Int) -> WidgetID { widget("\(provider)/w\(n)") }
    static func mail(_ n: Int) -> WidgetID { widget("com.example.mail/m\(n)") }
    static func news(_ n: Int) -> WidgetID { widget("com.example.news/n\(n)") }
    static let providers = [provider, "com.example.mail", "com.example.news"]

    @discardableResult
    static func put(_ store: TimelineStore, _ widget: WidgetID, body: String = "body", quota: ProviderQuota? = nil) throws -> UInt64 {
        try store.putTimeline(
            widget, protectionClass: .none, family: "systemSmall", reloadDue: nil, body: secure(body), placeholder: nil,
            quota: quota)
    }

    /// The head's version byte (2: no usage table, 3: with one).
    static func headVersion(_ fixture: Fixture) throws -> UInt8 {
        try #require(FileManager.default.contents(atPath: "\(fixture.state)/\(GenerationLedger.fileName)"))[4]
    }

    /// The usage table the head on disk carries (`nil`: none).
    static func headTable(_ fixture: Fixture, _ store: TimelineStore) throws -> UsageTable? {
        let loaded = try GenerationLedger.load(
            stateDirectory: fixture.state, macKey: store.custody.subkeys.ledgerMAC, anchor: RollbackAnchor(counter: nil))
        return try #require(loaded).foldedUsage
    }

    /// Every provider's usage as the complete index counts it.
    static func indexed(_ store: TimelineStore) throws -> [String: ProviderUsage] {
        try store.timelines.indexAll()
        return Dictionary(uniqueKeysWithValues: providers.map { ($0, store.usage(of: $0)) })
    }

    /// Three widgets of `provider` and one of another, then an orderly stop once the
    /// index is complete (as the daemon's background index makes it).
    static func stoppedInOrder(_ fixture: Fixture) throws -> ProviderUsage {
        let store = try fixture.open()
        for n in 1...3 { try put(store, clock(n)) }
        try put(store, mail(1))
        try store.timelines.indexAll()
        try store.foldJournal()
        return store.usage(of: provider)
    }

    /// Writes of three providers, new widgets and replacements of several sizes, with
    /// folds between them (the test journal holds a few dozen of these), then a crash:
    /// the store goes without a stop, its last writes only in the journal.
    static func crashedAfterWrites(_ fixture: Fixture, journalCapacity: Int = Fixture.journalCapacity) throws {
        let store = try TimelineStore(
            stateDirectory: fixture.state, credentialsDirectory: nil, configuration: .test, journalCapacity: journalCapacity,
            journalFolding: .atOnce, now: t0)
        for round in 0..<4 {
            for n in 0..<12 { try put(store, clock(n), body: String(repeating: "c", count: 200 + 300 * round + n)) }
            for n in 0..<(3 + round) { try put(store, mail(n), body: String(repeating: "m", count: 900 * (round + 1))) }
            try put(store, news(round), body: "n")
        }
        try store.deleteTimeline(mail(0))
        try put(store, mail(0), body: "back")
        try put(store, clock(1), body: "last")
    }

    @Test func afterACrashTheUsageIsWhatTheCompleteIndexCountsAndWritesAreJudgedAtOnce() throws {
        let fixture = Fixture()
        try Self.crashedAfterWrites(fixture)
        let known: [String: ProviderUsage]
        do {
            let store = try fixture.open()
            #expect(store.recoveredJournalRecords > 0)
            #expect(store.isUsageKnown)
            known = Dictionary(uniqueKeysWithValues: Self.providers.map { ($0, store.usage(of: $0)) })
            #expect(known[Self.provider]?.widgets == 12)
            #expect(known["com.example.mail"]?.widgets == 6)
            // Refused before the index is complete, by the widgets or by the bytes.
            #expect(throws: StoreError.tooManyWidgets(limit: 12)) {
                try Self.put(store, Self.clock(12), quota: ProviderQuota(maxWidgets: 12, maxBytes: 1 << 30))
            }
            let bytes = known["com.example.mail"]!.bytes
            #expect(throws: StoreError.tooLarge(limit: bytes)) {
                try Self.put(store, Self.mail(9), quota: ProviderQuota(maxWidgets: 100, maxBytes: bytes))
            }
            #expect(!store.timelines.isComplete, "a write completed the index")
            // What the table said at open is what the complete index counts.
            #expect(try Self.indexed(store) == known)
        }
        // Accepted before the index is complete, up to the quota.
        let store = try fixture.open()
        #expect(store.isUsageKnown)
        let quota = ProviderQuota(maxWidgets: 13, maxBytes: 1 << 30)
        #expect(try Self.put(store, Self.clock(12), quota: quota) == 1)
        #expect(throws: StoreError.tooManyWidgets(limit: 13)) { try Self.put(store, Self.clock(13), quota: quota) }
        #expect(!store.timelines.isComplete, "a write completed the index")
    }

    @Test func afterACrashOfAStoreWithoutAJournalTheUsageIsKnownToo() throws {
        let fixture = Fixture()
        try Self.crashedAfterWrites(fixture, journalCapacity: 0)
        #expect(try Self.headVersion(fixture) == 3)
        let store = try TimelineStore(
            stateDirectory: fixture.state, credentialsDirectory: nil, configuration: .test, journalCapacity: 0, now: t0)
        #expect(store.isUsageKnown)
        let known = Dictionary(uniqueKeysWithValues: Self.providers.map { ($0, store.usage(of: $0)) })
        #expect(try Self.indexed(store) == known)
    }

    @Test func aRuntimeFoldsHeadCarriesTheTableTheIndexCounts() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for n in 0..<5 { try Self.put(store, Self.clock(n), body: String(repeating: "x", count: 100 * n)) }
        try Self.put(store, Self.mail(1))
        try Self.put(store, Self.clock(2), body: "shorter")
        try store.journal?.fold()
        #expect(try Self.headVersion(fixture) == 3)
        let table = try #require(try Self.headTable(fixture, store))
        try store.timelines.indexAll()
        #expect(table == store.timelines.index.usageTable)
        #expect(table.rows[Self.provider]?.widgets == 5)
    }

    @Test func aDeleteAndAWipeTakeTheirShareOffTheTable() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for n in 0..<3 { try Self.put(store, Self.clock(n)) }
        try store.journal?.fold()
        let before = try #require(try Self.headTable(fixture, store)?.rows[Self.provider])
        #expect(before.widgets == 3)
        try store.deleteTimeline(Self.clock(1))
        let after = try #require(try Self.headTable(fixture, store)?.rows[Self.provider])
        #expect(after.widgets == 2)
        #expect(after.bytes < before.bytes)
        try store.timelines.indexAll()
        #expect(try Self.headTable(fixture, store) == store.timelines.index.usageTable)
        try store.wipe()
        #expect(try Self.headTable(fixture, store) == UsageTable())
        let reopened = try fixture.open()
        #expect(reopened.isUsageKnown)
        #expect(reopened.usage(of: Self.provider) == ProviderUsage())
    }

    @Test func aFileThatDoesNotCountIsNotTakenOff() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for n in 0..<3 { try Self.put(store, Self.clock(n)) }
        try store.journal?.fold()
        // A file damaged behind the store's back: the table still counts it, and its
        // replacement, which counts, takes nothing off for it (too much, never too little).
        let damaged = "\(fixture.timelines)/\(try store.timelines.fileName(for: Self.clock(0)))"
        try Data("WDTL".utf8).write(to: URL(fileURLWithPath: damaged))
        try Self.put(store, Self.clock(0))
        try store.journal?.fold()
        let table = try #require(try Self.headTable(fixture, store)?.rows[Self.provider])
        #expect(table.widgets == 4)
        // The orderly stop writes the store's own count, exact once its index is complete.
        try store.timelines.indexAll()
        try store.foldJournal()
        #expect(try Self.headTable(fixture, store)?.rows[Self.provider]?.widgets == 3)
    }

    @Test func aChangeUnderWayWithholdsTheTableAndOneThatFailsLosesIt() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        try Self.put(store, Self.clock(1))
        try store.journal?.fold()
        #expect(try Self.headVersion(fixture) == 3)
        let ledger = store.timelines.ledger
        // A change's files are written before its save: a crash meanwhile finds no table.
        #expect(throws: FileError.self) {
            try ledger.changeFiles(withholding: true, { () throws(FileError) -> UsageChange in
                #expect((try? Self.headVersion(fixture)) == 2)
                throw .io(operation: "write", path: fixture.timelines, errno: Errno(rawValue: EIO))
            }, thenSave: {})
        }
        #expect(ledger.foldedUsage == nil)
        try ledger.save()
        #expect(try Self.headVersion(fixture) == 2)
        #expect(!(try fixture.open()).isUsageKnown)
    }

    @Test func aRebuiltLedgerLeavesTheUsageUnknownAndWritesCompleteTheIndexFirst() throws {
        let fixture = Fixture()
        _ = try Self.stoppedInOrder(fixture)
        try GenerationLedger.removeFiles(stateDirectory: fixture.state)
        let rebuilt = try TimelineStore(
            stateDirectory: fixture.state, credentialsDirectory: nil, configuration: .test,
            journalCapacity: Fixture.journalCapacity, journalFolding: .atOnce, startOver: true, now: t0)
        #expect(rebuilt.rebuiltLedger?.restored == 4)
        try Self.put(rebuilt, Self.clock(4))
        try rebuilt.journal?.fold()
        #expect(try Self.headVersion(fixture) == 2)
        let store = try fixture.open()
        #expect(!store.isUsageKnown)
        #expect(throws: StoreError.tooManyWidgets(limit: 4)) {
            try Self.put(store, Self.clock(5), quota: ProviderQuota(maxWidgets: 4, maxBytes: 1 << 20))
        }
        #expect(store.timelines.isComplete)
        // An orderly stop with the index complete makes it known again.
        try store.foldJournal()
        #expect(try fixture.open().isUsageKnown)
    }

    @Test func anAlteredTableIsAStartError() throws {
        let fixture = Fixture()
        _ = try Self.stoppedInOrder(fixture)
        let path = "\(fixture.state)/\(GenerationLedger.fileName)"
        var head = try #require(FileManager.default.contents(atPath: path))
        // The last row's widget count, changed in place.
        head[head.count - 32 - 16] ^= 1
        try head.write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.corrupt(file: path, reason: .authenticationFailure)) { _ = try fixture.open() }
    }

    @Test func afterAnOrderlyStopAWriteIsJudgedBeforeTheIndexIsComplete() throws {
        let fixture = Fixture()
        let stopped = try Self.stoppedInOrder(fixture)
        #expect(stopped.widgets == 3)
        #expect(try Self.headVersion(fixture) == 3)
        let store = try fixture.open()
        #expect(store.isUsageKnown)
        #expect(store.usage(of: Self.provider) == stopped)
        let quota = ProviderQuota(maxWidgets: 4, maxBytes: 1 << 20)
        #expect(try Self.put(store, Self.clock(4), quota: quota) == 1)
        #expect(!store.timelines.isComplete, "the write completed the index")
        #expect(throws: StoreError.tooManyWidgets(limit: 4)) { try Self.put(store, Self.clock(5), quota: quota) }
        // A replacement counts only its change in size, its previous size read on demand.
        let before = store.usage(of: Self.provider)
        let bigger = String(repeating: "x", count: 3000)
        #expect(try Self.put(store, Self.clock(1), body: bigger, quota: quota) == 2)
        let grown = store.usage(of: Self.provider)
        #expect(grown.widgets == 4 && grown.bytes > before.bytes + 2900)
        #expect(throws: StoreError.tooLarge(limit: grown.bytes)) {
            try Self.put(store, Self.clock(2), body: bigger, quota: ProviderQuota(maxWidgets: 4, maxBytes: grown.bytes))
        }
        // A delete frees its share.
        try store.deleteTimeline(Self.clock(2))
        #expect(try Self.put(store, Self.clock(5), quota: quota) == 1)
        #expect(!store.timelines.isComplete)
        // What was counted is what the complete index counts.
        let counted = store.usage(of: Self.provider)
        try store.timelines.indexAll()
        #expect(store.usage(of: Self.provider) == counted)
        #expect(counted.widgets == 4)
    }

    @Test func theCompleteIndexReplacesTheTable() throws {
        let fixture = Fixture()
        let stopped = try Self.stoppedInOrder(fixture)
        // A file damaged after the stop: the table still counts it, the index will not.
        let opened = try fixture.open()
        let damaged = "\(fixture.timelines)/\(try opened.timelines.fileName(for: Self.clock(3)))"
        try Data("WTL".utf8).write(to: URL(fileURLWithPath: damaged))
        let store = try fixture.open()
        #expect(store.usage(of: Self.provider) == stopped)
        try store.timelines.indexAll()
        #expect(store.usage(of: Self.provider).widgets == 2)
        #expect(store.isUsageKnown)
    }
}
