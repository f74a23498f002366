import Foundation
import Testing
import WidgetModel
@testable import WidgetStore

/// What one provider stores is bounded (issue 13, defect 9): widgets and bytes of
/// timeline files, counted exactly across restarts and before the index is complete.
@Suite struct ProviderQuotaTests {
    static let provider = "com.example.clock"
    static func clock(_ n: Int) -> WidgetID { widget("\(provider)/w\(n)") }

    @discardableResult
    static func put(_ store: TimelineStore, _ widget: WidgetID, body: String = "body", quota: ProviderQuota?) throws -> UInt64 {
        try store.putTimeline(
            widget, protectionClass: .none, family: "systemSmall", reloadDue: nil, body: secure(body), placeholder: nil,
            quota: quota)
    }

    /// The real size of every timeline file now on disk, after a fold of the journal.
    static func bytesOnDisk(_ fixture: Fixture, _ store: TimelineStore) throws -> Int {
        try store.foldJournal()
        return try fixture.timelineFiles().reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: $1)[.size] as! Int) }
    }

    @Test func theComputedFileSizeIsTheSizeWritten() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        for (n, body) in ["", "x", String(repeating: "y", count: 5000)].enumerated() {
            try Self.put(store, Self.clock(n), body: body, quota: nil)
        }
        #expect(store.usage(of: Self.provider) == ProviderUsage(widgets: 3, bytes: try Self.bytesOnDisk(fixture, store)))
    }

    @Test func aWriteBeyondMaxWidgetsIsRefusedAndChangesNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let quota = ProviderQuota(maxWidgets: 2, maxBytes: 1 << 20)
        try Self.put(store, Self.clock(1), quota: quota)
        try Self.put(store, Self.clock(2), quota: quota)
        let before = store.usage(of: Self.provider)
        #expect(throws: StoreError.tooManyWidgets(limit: 2)) { try Self.put(store, Self.clock(3), quota: quota) }
        #expect(store.usage(of: Self.provider) == before)
        #expect(try store.metadata(Self.clock(3)) == nil)
        // A replacement at the quota is no new widget; another provider has its own count.
        #expect(try Self.put(store, Self.clock(1), quota: quota) == 2)
        try Self.put(store, widget("com.example.mail/inbox"), quota: quota)
        // A delete frees its share.
        try store.deleteTimeline(Self.clock(2))
        #expect(try Self.put(store, Self.clock(3), quota: quota) == 1)
    }

    @Test func aWriteBeyondMaxBytesIsRefusedAndASameSizeReplacementIsNot() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let body = String(repeating: "z", count: 2000)
        try Self.put(store, Self.clock(1), body: body, quota: nil)
        let one = store.usage(of: Self.provider).bytes
        // Exactly two such files fit.
        let quota = ProviderQuota(maxWidgets: 100, maxBytes: 2 * one)
        try Self.put(store, Self.clock(2), body: body, quota: quota)
        #expect(throws: StoreError.tooLarge(limit: 2 * one)) { try Self.put(store, Self.clock(3), body: body, quota: quota) }
        // Replacing with the same size still fits at the quota; a larger one does not.
        #expect(try Self.put(store, Self.clock(1), body: body, quota: quota) == 2)
        #expect(throws: StoreError.tooLarge(limit: 2 * one)) { try Self.put(store, Self.clock(1), body: body + "!", quota: quota) }
        #expect(try store.indexedGeneration(Self.clock(1)) == 2)
        #expect(store.usage(of: Self.provider).bytes == 2 * one)
    }

    @Test func theCountIsExactAfterARestartBeforeAnyIndexing() throws {
        let fixture = Fixture()
        var quota = ProviderQuota(maxWidgets: 3, maxBytes: 1 << 20)
        do {
            let store = try fixture.open()
            for n in 1...3 { try Self.put(store, Self.clock(n), quota: quota) }
            try store.deleteTimeline(Self.clock(3))
            try Self.put(store, Self.clock(4), quota: quota)
        }
        // A fresh store has indexed nothing yet: the write must not be judged on that.
        let reopened = try fixture.open()
        #expect(throws: StoreError.tooManyWidgets(limit: 3)) { try Self.put(reopened, Self.clock(5), quota: quota) }
        #expect(reopened.usage(of: Self.provider).widgets == 3)
        #expect(reopened.usage(of: Self.provider).bytes == (try Self.bytesOnDisk(fixture, reopened)))
        quota.maxWidgets = 4
        #expect(try Self.put(reopened, Self.clock(5), quota: quota) == 1)
    }

    @Test func aBatchCountsItsOwnEarlierWrites() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let quota = ProviderQuota(maxWidgets: 2, maxBytes: 1 << 20)
        let writes = (1...3).map {
            TimelineStore.TimelineWrite(
                widget: Self.clock($0), protectionClass: .none, family: nil, reloadDue: nil, body: secure("b"),
                placeholder: nil, quota: quota)
        }
        let results = store.putTimelines(writes)
        #expect((try? results[0].get()) == 1)
        #expect((try? results[1].get()) == 1)
        #expect(results[2] == .failure(.tooManyWidgets(limit: 2)))
    }
}
