import Foundation
import Testing
import WidgetModel
@testable import StoreFiles
@testable import StoreLedger
@testable import WidgetStore

/// The index keeps no placeholder: one not cached is read back from its verified file,
/// with every check a first read makes.
@Suite struct PlaceholderTests {
    let widgetA = widget("com.example.weather/forecast")
    let widgetB = widget("com.example.mail/inbox")

    @Test func anUncachedPlaceholderIsReadBackAndKeptByARewriteWithoutOne() throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: .complete, family: "systemSmall", reloadDue: nil, body: secure("v1"), placeholder: [7, 8])
        store.forgetCachedPlaceholders()
        #expect(try store.metadata(widgetA)?.placeholder == [7, 8])
        store.forgetCachedPlaceholders()
        #expect(try store.putTimeline(widgetA, protectionClass: .complete, family: "systemSmall", reloadDue: nil, body: secure("v2"), placeholder: nil) == 2)
        store.forgetCachedPlaceholders()
        #expect(try store.metadata(widgetA)?.placeholder == [7, 8])
        #expect(try f.open().metadata(widgetA)?.placeholder == [7, 8])
        var withoutPlaceholder = try #require(try store.metadata(widgetA))
        withoutPlaceholder.placeholder = nil
        #expect(try store.metadataWithoutPlaceholder(widgetA) == withoutPlaceholder)
        // Listing answers from memory and leaves placeholders out.
        #expect(try store.listTimelines().map(\.placeholder) == [nil])
    }

    @Test func aFileReplacedAfterIndexingIsCheckedWhenItsPlaceholderIsRead() throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: .none, family: nil, reloadDue: nil, body: secure("a"), placeholder: [1])
        try store.putTimeline(widgetB, protectionClass: .none, family: nil, reloadDue: nil, body: secure("b"), placeholder: [2])
        #expect(try store.listTimelines().count == 2)
        // Another widget's file renamed onto A's name is refused, not served as A's.
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let files = try f.timelineFiles()
        try FileManager.default.removeItem(atPath: files[0])
        try FileManager.default.copyItem(atPath: files[1], toPath: files[0])
        store.forgetCachedPlaceholders()
        var reasons: [CorruptionReason] = []
        for w in [widgetA, widgetB] {
            do { _ = try store.metadata(w) } catch StoreError.corrupt(_, let reason) { reasons.append(reason) }
        }
        #expect(reasons == [.wrongWidget])
        // The verdict is remembered, and the damaged file is left out of the listing.
        #expect(try store.listTimelines().count == 1)
    }

    @Test func theCacheIsBoundedByCountAndBytes() {
        var cache = PlaceholderCache(countLimit: 3, byteLimit: 10)
        let keys = (0..<5).map { FileDigest(digest: [UInt8](repeating: UInt8($0), count: 16)) }
        for (i, key) in keys.enumerated() { cache.set(key, [UInt8(i)], generation: 1) }
        #expect(cache.count == 3)
        #expect(cache.placeholder(keys[0], generation: 1) == nil)
        #expect(cache.placeholder(keys[4], generation: 1) == [4])
        #expect(cache.placeholder(keys[4], generation: 2) == nil)
        // Using one keeps it; the bytes bound evicts the least recently used.
        #expect(cache.placeholder(keys[2], generation: 1) == [2])
        cache.set(keys[0], [UInt8](repeating: 0, count: 9), generation: 1)
        #expect(cache.placeholder(keys[2], generation: 1) == [2])
        #expect(cache.placeholder(keys[3], generation: 1) == nil)
        #expect(cache.placeholder(keys[4], generation: 1) == nil)
        cache.set(keys[1], [UInt8](repeating: 0, count: 11), generation: 1)
        #expect(cache.placeholder(keys[1], generation: 1) == nil)
    }
}
