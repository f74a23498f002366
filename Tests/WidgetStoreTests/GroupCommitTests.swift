import Foundation
import Testing
import WidgetModel
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

    @Test func anEmptyBatchDoesNothing() throws {
        let fixture = Fixture()
        let store = try fixture.open()
        #expect(store.putTimelines([]).isEmpty)
        #expect(try fixture.timelineFiles().isEmpty)
    }
}
