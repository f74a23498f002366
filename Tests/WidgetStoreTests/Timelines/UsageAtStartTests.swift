import Foundation
import Testing
import WidgetModel
@testable import WidgetStore

/// An orderly stop leaves each provider's usage in the catalog, so that the next start
/// judges quotas before it has read every file; any other way to stop leaves it unknown,
/// and writes with a quota complete the index first as before (fail closed).
@Suite struct UsageAtStartTests {
    static let provider = "com.example.clock"
    static func clock(_ n: Int) -> WidgetID { widget("\(provider)/w\(n)") }

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

    /// Three widgets of `provider` and one of another, then an orderly stop once the
    /// index is complete (as the daemon's background index makes it).
    static func stoppedInOrder(_ fixture: Fixture) throws -> ProviderUsage {
        let store = try fixture.open()
        for n in 1...3 { try put(store, clock(n)) }
        try put(store, widget("com.example.mail/inbox"))
        try store.timelines.indexAll()
        try store.checkpoint()
        return store.usage(of: provider)
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

    @Test func aStopBeforeTheUsageIsKnownLeavesNoTable() throws {
        let fixture = Fixture()
        do {
            let store = try fixture.open()
            try Self.put(store, Self.clock(1))
            try store.checkpoint()
        }
        #expect(try Self.headVersion(fixture) == 2)
        #expect(!(try fixture.open()).isUsageKnown)
    }

    @Test func afterACrashTheUsageIsUnknownAndAWriteCompletesTheIndexFirst() throws {
        let fixture = Fixture()
        _ = try Self.stoppedInOrder(fixture)
        do {
            // A write after the stop, journaled and never folded: then the process dies.
            let store = try fixture.open()
            try Self.put(store, Self.clock(4))
        }
        let store = try fixture.open()
        #expect(store.recoveredJournalRecords == 1)
        #expect(!store.isUsageKnown)
        #expect(throws: StoreError.tooManyWidgets(limit: 4)) {
            try Self.put(store, Self.clock(5), quota: ProviderQuota(maxWidgets: 4, maxBytes: 1 << 20))
        }
        #expect(store.timelines.isComplete)
    }

    @Test func aHeadSavedWhileRunningCarriesNoTable() throws {
        let fixture = Fixture()
        _ = try Self.stoppedInOrder(fixture)
        // A fold, a delete, a direct write: each leaves a head without a table, so that a
        // crash after it cannot leave the stop's table beside changed files.
        do {
            let store = try fixture.open()
            try Self.put(store, Self.clock(4))
            try store.journal?.fold()
            #expect(try Self.headVersion(fixture) == 2)
            try store.checkpoint()
            #expect(try Self.headVersion(fixture) == 3)
            try store.deleteTimeline(Self.clock(4))
            #expect(try Self.headVersion(fixture) == 2)
            try store.checkpoint()
        }
        #expect(try Self.headVersion(fixture) == 3)
        let direct = try TimelineStore(stateDirectory: fixture.state, credentialsDirectory: nil, configuration: .test, journalCapacity: 0, now: t0)
        #expect(direct.isUsageKnown)
        try Self.put(direct, Self.clock(4))
        #expect(try Self.headVersion(fixture) == 2)
        #expect(!(try fixture.open()).isUsageKnown)
    }

    @Test func theCompleteIndexReplacesTheStopsTable() throws {
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

    @Test func aWipeLeavesNoTableBehind() throws {
        let fixture = Fixture()
        _ = try Self.stoppedInOrder(fixture)
        let store = try fixture.open()
        try store.wipe()
        #expect(store.usage(of: Self.provider) == ProviderUsage())
        try store.checkpoint()
        let reopened = try fixture.open()
        #expect(reopened.isUsageKnown)
        #expect(reopened.usage(of: Self.provider) == ProviderUsage())
    }
}
