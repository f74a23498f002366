import Foundation
import Testing
@testable import WidgetModel

/// Current entry, `validUntil`, staleness and the next change, at their edges.
@Suite struct EntrySelectionTests {
    /// Entries at +0, +600 and +1200 seconds, given out of order.
    private let timeline = Timeline(entries: [
        Entry(date: Fixtures.at(1200), fields: ["n": Field(value: .number(3))]),
        Entry(date: Fixtures.at(0), fields: ["n": Field(value: .number(1))]),
        Entry(date: Fixtures.at(600), fields: ["n": Field(value: .number(2))]),
    ])

    private func shown(at seconds: Double) -> JSONValue? {
        timeline.currentEntry(at: Fixtures.at(seconds))?.fields["n"]?.value
    }

    @Test(arguments: [
        (-3600.0, 1.0, 600.0 as Double?),  // all in the future: the first, until the second
        (-0.001, 1, 600),
        (0, 1, 600),  // exactly at an entry's date: that entry
        (599.999, 1, 600),
        (600, 2, 1200),
        (1199, 2, 1200),
        (1200, 3, nil),  // the last: valid until a new timeline comes
        (86_400, 3, nil),
    ])
    func currentEntryIsTheLatestAtOrBeforeNow(seconds: Double, number: Double, validUntil: Double?) {
        #expect(shown(at: seconds) == .number(JSONNumber(number)))
        #expect(timeline.validUntil(at: Fixtures.at(seconds)) == validUntil.map(Fixtures.at))
    }

    @Test func entriesAreKeptInDateOrderAndTiesInGivenOrder() {
        let tied = Timeline(entries: [
            Entry(date: Fixtures.at(60), fields: ["n": Field(value: .number(3))]),
            Entry(date: Fixtures.at(0), fields: ["n": Field(value: .number(1))]),
            Entry(date: Fixtures.at(0), fields: ["n": Field(value: .number(2))]),
        ])
        #expect(tied.entries.map { $0.fields["n"]?.value } == [.number(1), .number(2), .number(3)])
        // Among equal dates the last given wins, and stays until the next different date.
        #expect(tied.currentEntry(at: Fixtures.at(0))?.fields["n"]?.value == .number(2))
        #expect(tied.validUntil(at: Fixtures.at(0)) == Fixtures.at(60))
        #expect(tied.currentEntry(at: Fixtures.at(-5))?.fields["n"]?.value == .number(1))
        #expect(tied.validUntil(at: Fixtures.at(-5)) == Fixtures.at(60))
    }

    @Test func noEntriesMeansNoCurrentEntryAndAReloadDueAtOnce() {
        let empty = Timeline(entries: [], policy: .atEnd)
        #expect(empty.currentEntry(at: Fixtures.t0) == nil)
        #expect(empty.validUntil(at: Fixtures.t0) == nil)
        #expect(empty.reloadDue == .distantPast)
        #expect(empty.isStale(at: Fixtures.t0))
        #expect(empty.nextChange(after: Fixtures.t0) == nil)
        #expect(Timeline(entries: [], policy: .never).reloadDue == nil)
        #expect(Timeline(entries: [], policy: .after(Fixtures.at(5))).reloadDue == Fixtures.at(5))
    }

    @Test(arguments: [
        // policy, now, stale, next change
        (ReloadPolicy.atEnd, 0.0, false, 600.0 as Double?),
        (.atEnd, 1199.999, false, 1200),
        (.atEnd, 1200, true, nil),  // due exactly at the last entry's date
        (.atEnd, 5000, true, nil),
        (.after(Fixtures.at(300)), 0, false, 300),  // the reload comes before the next entry
        (.after(Fixtures.at(300)), 299, false, 300),
        (.after(Fixtures.at(300)), 300, true, 600),
        (.after(Fixtures.at(3000)), 1200, false, 3000),
        (.after(Fixtures.at(3000)), 3000, true, nil),
        (.never, 0, false, 600),
        (.never, 1200, false, nil),
        (.never, 1_000_000, false, nil),
        (.atEnd, -100, false, 600),  // all in the future: first shown, changes at the second
    ])
    func stalenessAndNextChangeFollowThePolicy(policy: ReloadPolicy, seconds: Double, stale: Bool, next: Double?) {
        var timeline = self.timeline
        timeline.policy = policy
        #expect(timeline.isStale(at: Fixtures.at(seconds)) == stale)
        #expect(timeline.nextChange(after: Fixtures.at(seconds)) == next.map(Fixtures.at))
    }

    @Test func reloadDueFollowsThePolicy() {
        var timeline = self.timeline
        #expect(timeline.reloadDue == Fixtures.at(1200))
        timeline.policy = .after(Fixtures.at(42))
        #expect(timeline.reloadDue == Fixtures.at(42))
        timeline.policy = .never
        #expect(timeline.reloadDue == nil)
    }

    @Test func appendingMergesInDateOrder() {
        let more = timeline.appending([Entry(date: Fixtures.at(300), fields: ["n": Field(value: .number(1.5))])])
        #expect(more.entries.map(\.date) == [0.0, 300, 600, 1200].map(Fixtures.at))
        #expect(more.currentEntry(at: Fixtures.at(400))?.fields["n"]?.value == .number(1.5))
    }
}
