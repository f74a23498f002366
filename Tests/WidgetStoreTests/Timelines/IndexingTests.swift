import Foundation
import Testing
import WidgetModel
@testable import WidgetStore

/// Indexing a reopened store in slices finds every timeline exactly once, leaves
/// damaged files out, and agrees with `listTimelines()` whenever that is called.
@Suite struct IndexingTests {
    private func reopenedStore(timelines: Int, _ fixture: Fixture) throws -> TimelineStore {
        let store = try fixture.open()
        for i in 0..<timelines {
            try store.putTimeline(
                widget("com.example.clock/w\(i)"), protectionClass: .none, family: nil, reloadDue: nil,
                body: secure("body \(i)"), placeholder: nil)
        }
        return try fixture.open()
    }

    @Test func slicesFindEveryTimelineOnceThenNil() throws {
        let fixture = Fixture()
        let store = try reopenedStore(timelines: 7, fixture)
        var found: [WidgetID] = []
        var slices = 0
        while let slice = try store.indexNextTimelines(limit: 3) {
            #expect(slice.count <= 3)
            found += slice.map(\.widget)
            slices += 1
        }
        #expect(slices == 3)
        #expect(found.sorted() == (0..<7).map { widget("com.example.clock/w\($0)") }.sorted())
        #expect(try store.indexNextTimelines(limit: 3) == nil)
    }

    @Test func listingAfterAPartialIndexReturnsEverything() throws {
        let fixture = Fixture()
        let store = try reopenedStore(timelines: 5, fixture)
        _ = try store.indexNextTimelines(limit: 2)
        try store.putTimeline(
            widget("com.example.clock/new"), protectionClass: .none, family: nil, reloadDue: nil, body: secure("new"),
            placeholder: nil)
        try store.deleteTimeline(widget("com.example.clock/w0"))
        let listed = try store.listTimelines().map(\.widget)
        #expect(Set(listed) == Set(((1..<5).map { widget("com.example.clock/w\($0)") }) + [widget("com.example.clock/new")]))
        #expect(listed.count == 5)
        #expect(try store.indexNextTimelines(limit: 1) == nil)
    }

    @Test func damagedFilesAreLeftOutOfSlices() throws {
        let fixture = Fixture()
        let store = try reopenedStore(timelines: 3, fixture)
        let victim = try fixture.timelineFiles()[0]
        try Data("not a timeline".utf8).write(to: URL(fileURLWithPath: victim))
        var found = 0
        while let slice = try store.indexNextTimelines(limit: 1) { found += slice.count }
        #expect(found == 2)
    }
}

/// Leftovers of interrupted writes are removed when the directory is first indexed.
@Suite struct LeftoverTests {
    @Test func indexingRemovesLeftoverTemporaryFiles() throws {
        let fixture = Fixture()
        _ = try fixture.open()
        let leftover = "\(fixture.timelines)/.tmp-0123456789abcdef"
        try Data("half a write".utf8).write(to: URL(fileURLWithPath: leftover))
        let store = try fixture.open()
        #expect(try store.listTimelines().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }
}
