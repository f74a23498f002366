import Foundation
import Testing
import WidgetModel
@testable import StoreKeys
@testable import WidgetStore

/// `putTimelines` commits several writes together with the outcome of writing each
/// in turn: generations in order, the last write of a widget kept, failures alone.
@Suite struct GroupCommitTests {
    private func write(_ w: WidgetID, _ body: String, bytes: Int? = nil) -> TimelineStore.TimelineWrite {
        TimelineStore.TimelineWrite(
            widget: w, protectionClass: .none, family: nil, reloadDue: nil,
            body: secure(bytes.map { String(repeating: "x", count: $0) } ?? body), placeholder: Array("ph".utf8))
    }

    @Test func aBatchActsLikeItsWritesInTurn() throws {
        let fixture = Fixture()
        var configuration = StoreConfiguration.test
        configuration.maxTimelineBytes = 64
        let store = try fixture.open(configuration)
        try store.putTimeline(widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("v1"), placeholder: nil)
        let results = store.putTimelines([
            write(widgetD, "v2"), write(widgetB, "b1"), write(widgetD, "too large", bytes: 65), write(widgetD, "v3"),
        ])
        #expect(try results[0].get() == 2)
        #expect(try results[1].get() == 1)
        guard case .failure(.tooLarge(limit: 64)) = results[2] else {
            Issue.record("expected tooLarge, got \(results[2])")
            return
        }
        #expect(try results[3].get() == 3)
        #expect(text(try store.readBody(widgetD, allowOpenClassB: false)) == "v3")

        let reopened = try fixture.open(configuration)
        #expect(text(try reopened.readBody(widgetD, allowOpenClassB: false)) == "v3")
        #expect(try reopened.metadata(widgetD)?.generation == 3)
        #expect(text(try reopened.readBody(widgetB, allowOpenClassB: false)) == "b1")
        #expect(try fixture.timelineFiles().count == 2)
    }

    /// The daemon numbers the next batch while the previous one is still being written
    /// on a worker: the later write of a widget still wins, on disk and in the index.
    @Test func overlappingBatchesKeepTheLaterWrite() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        let first = store.prepareWrites([write(widgetD, "first")])
        let second = store.prepareWrites([write(widgetD, "second"), write(widgetB, "b")])
        let firstResults = store.finishWrites(TimelineStore.commit(first))
        #expect(try firstResults[0].get() == 1)
        let secondResults = store.finishWrites(TimelineStore.commit(second))
        #expect(try secondResults[0].get() == 2)
        #expect(text(try store.readBody(widgetD, allowOpenClassB: false)) == "second")
        let reopened = try fixture.open()
        #expect(try reopened.metadata(widgetD)?.generation == 2)
        #expect(text(try reopened.readBody(widgetD, allowOpenClassB: false)) == "second")
    }

    /// A lock that comes while a class-A batch is being written leaves no plaintext in
    /// the cache: whether to cache is decided when the batch is applied, on the store's thread.
    @Test func aLockDuringACommitCachesNoClassAPlaintext() throws {
        let fixture = Fixture()
        var configuration = StoreConfiguration.test
        configuration.classAGrace = 0
        do {
            let store = try fixture.open(configuration)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try fixture.open(configuration)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        let classA = TimelineStore.TimelineWrite(
            widget: widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("secret"), placeholder: nil)
        let prepared = store.prepareWrites([classA])
        let committed = TimelineStore.commit(prepared)
        store.lock(now: .at(t0))
        store.advance(to: .at(t0))
        #expect(try store.finishWrites(committed)[0].get() == 1)
        #expect(!store.isCached(widgetA))
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "secret")
    }

    @Test func anEmptyBatchDoesNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(store.putTimelines([]).isEmpty)
        #expect(try fixture.timelineFiles().isEmpty)
    }

    /// A batch's results are known once it is durable, before the store applies it; and
    /// a batch is a journal append only while the journal has room for it.
    @Test func aCommittedBatchKnowsItsResultsAndWhetherItIsAnAppendAlone() throws {
        let fixture = Fixture()
        var configuration = StoreConfiguration.test
        configuration.maxTimelineBytes = 16 << 10
        let store = try fixture.open(configuration)
        let prepared = store.prepareWrites([write(widgetD, "v1"), write(widgetB, "too large", bytes: 16 << 10 + 1)])
        #expect(prepared.isJournalAppendOnly)
        let committed = TimelineStore.commit(prepared)
        let early = committed.results
        #expect(try early[0].get() == 1)
        #expect(throws: StoreError.self) { try early[1].get() }
        let applied = store.finishWrites(committed)
        #expect(try applied[0].get() == 1 && early.count == applied.count)
        // 8 KiB timelines into the 64 KiB journal: some fit, then one needs a fold first.
        var appends = 0
        while appends < 16 {
            let next = store.prepareWrites([write(widgetD, "", bytes: 8 << 10)])
            let appendOnly = next.isJournalAppendOnly
            #expect(try store.finishWrites(TimelineStore.commit(next))[0].get() == UInt64(appends + 2))
            if !appendOnly { break }
            appends += 1
        }
        #expect(appends >= 6 && appends <= 8, "appends: \(appends)")
    }
}
