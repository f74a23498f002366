import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// A stored body decoded only as far as a presentation reads it (`TimelineExcerpt`)
/// gives what the whole decode gives: the same presentation in every mode, the same
/// `validUntil`, next change and staleness, and for a body it refuses, the same error.
@Suite struct TimelineExcerptTests {
    /// An entry whose every field tells it apart from the others.
    private static func entry(at seconds: Double, _ n: Int, relevance: Bool = true) -> Entry {
        Entry(
            date: Fixtures.at(seconds), relevance: relevance ? Relevance(score: Double(n), duration: 60) : nil,
            fields: [
                "n": Field(value: .number(JSONNumber(Double(n)))),
                "secret": Field(value: .string("s\(n)"), privacy: .sensitive),
                "list": Field(value: .array([.string("a\(n)"), .object(["k": .bool(n % 2 == 0)])]), privacy: .public),
            ])
    }

    /// Timelines with entries in the past, the future and on equal dates, each policy,
    /// one entry and none.
    static let timelines: [(name: String, timeline: Timeline)] = [
        ("empty at end", Timeline(entries: [], policy: .atEnd)),
        ("empty never", Timeline(entries: [], policy: .never)),
        ("empty after", Timeline(entries: [], policy: .after(Fixtures.at(300)))),
        ("one", Timeline(entries: [entry(at: 0, 1)], policy: .atEnd)),
        ("one, no relevance", Timeline(entries: [entry(at: 600, 1, relevance: false)], policy: .never)),
        ("three", Timeline(entries: [entry(at: 0, 1), entry(at: 600, 2), entry(at: 1200, 3)], policy: .atEnd)),
        ("ties", Timeline(entries: [entry(at: 0, 1), entry(at: 0, 2), entry(at: 600, 3), entry(at: 600, 4)], policy: .atEnd)),
        ("after", Timeline(entries: [entry(at: 0, 1), entry(at: 600, 2)], policy: .after(Fixtures.at(900)))),
        ("after, early", Timeline(entries: [entry(at: 0, 1), entry(at: 1200, 2)], policy: .after(Fixtures.at(-60)))),
        ("never", Timeline(entries: [entry(at: -600, 1), entry(at: 0, 2), entry(at: 1800, 3)], policy: .never)),
        ("eight", Timeline(entries: (0..<8).map { entry(at: Double($0) * 300, $0) }, policy: .atEnd)),
    ]

    /// Before every entry, on each date, between them, after them all.
    static let nows: [Double] = [-3600, -600, -0.001, 0, 1, 299.999, 300, 599, 600, 900, 1200, 1800, 2100, 86_400]

    private static func body(_ timeline: Timeline) -> [UInt8] {
        JSONWriter.bytes { timeline.write(to: &$0) }
    }

    private static func excerpt(_ bytes: [UInt8], at now: Date) throws(InvalidTimeline) -> TimelineExcerpt {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(InvalidTimeline) in try TimelineExcerpt.decode(from: buffer, at: now) }
        }.get()
    }

    @Test(arguments: timelines.indices)
    func anExcerptPresentsAsTheWholeTimeline(_ index: Int) throws {
        let (name, timeline) = Self.timelines[index]
        let bytes = Self.body(timeline)
        let whole = try Timeline.decode(from: bytes)
        for seconds in Self.nows {
            let now = Fixtures.at(seconds)
            let excerpt = try Self.excerpt(bytes, at: now)
            #expect(excerpt == TimelineExcerpt(whole, at: now), "\(name) at \(seconds)")
            #expect(excerpt.covers(now))
            #expect(excerpt.entry == whole.currentEntry(at: now), "\(name) at \(seconds)")
            #expect(excerpt.validUntil(at: now) == whole.validUntil(at: now), "\(name) at \(seconds)")
            #expect(excerpt.nextChange(after: now) == whole.nextChange(after: now), "\(name) at \(seconds)")
            #expect(excerpt.reloadDue == whole.reloadDue, "\(name)")
            #expect(excerpt.isStale(at: now) == whole.isStale(at: now), "\(name) at \(seconds)")
            for decision in PresentationDecision.allCases {
                for surface in [Surface.homeScreen, .alwaysOn] {
                    for placeholder in [nil, Fixtures.placeholder] {
                        let fromWhole = PresentationRules.present(
                            decision, widget: Fixtures.widget, timeline: whole, placeholder: placeholder,
                            reloadDue: whole.reloadDue, surface: surface, now: now, state: .unlocked)
                        let fromExcerpt = PresentationRules.present(
                            decision, widget: Fixtures.widget, excerpt: excerpt, placeholder: placeholder,
                            reloadDue: whole.reloadDue, surface: surface, now: now, state: .unlocked)
                        #expect(fromExcerpt == fromWhole, "\(name) at \(seconds), \(decision)")
                        #expect(
                            PresentationRules.nextChange(of: fromExcerpt, excerpt: excerpt, now: now)
                                == PresentationRules.nextChange(of: fromWhole, timeline: whole, now: now))
                    }
                }
            }
        }
    }

    /// An excerpt answers for another instant only while its entry stays current.
    @Test func anExcerptCoversTheInstantsItsEntryIsCurrent() throws {
        let timeline = Timeline(entries: [Self.entry(at: 0, 1), Self.entry(at: 600, 2)], policy: .atEnd)
        let excerpt = try Self.excerpt(Self.body(timeline), at: Fixtures.at(10))
        #expect(excerpt.covers(Fixtures.at(0)))
        #expect(excerpt.covers(Fixtures.at(599.999)))
        #expect(!excerpt.covers(Fixtures.at(600)))
        // Before every entry the first is shown: the same entry.
        #expect(excerpt.covers(Fixtures.at(-60)))
        #expect(excerpt.validUntil(at: Fixtures.at(300)) == timeline.validUntil(at: Fixtures.at(300)))
    }

    /// Bodies the store would not write (keys in another order, dates out of order,
    /// whitespace, a null policy) still decode to what the whole decode makes of them.
    @Test(arguments: [
        #"{"policy":{"kind":"never"},"entries":[{"fields":{"n":{"value":2}},"date":"2026-01-01T00:10:00Z"},{"relevance":null,"date":"2026-01-01T00:20:00Z","fields":{}}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:20:00Z","fields":{"n":{"value":3}}},{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":1}}},{"date":"2026-01-01T00:10:00Z","fields":{"n":{"value":2}}}]}"#,
        " {\n \"entries\" : [ { \"date\" : \"2026-01-01T00:00:00Z\" , \"fields\" : { \"n\" : { \"value\" : [ 1 , { } ] } } } ] , \"policy\" : null } ",
        #"{"entries":[],"policy":{"kind":"after","date":"2026-01-01T00:05:00Z"}}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":"a \"quoted\" ] } string"}}},{"date":"2026-01-01T00:10:00Z","fields":{}}]}"#,
    ])
    func otherBodiesDecodeAsTheWholeDecodeReadsThem(_ text: String) throws {
        let bytes = Array(text.utf8)
        let whole = try Timeline.decode(from: bytes)
        for seconds in Self.nows {
            let now = Fixtures.at(seconds)
            #expect(try Self.excerpt(bytes, at: now) == TimelineExcerpt(whole, at: now), "at \(seconds)")
        }
    }

    /// A body that does not decode is the whole decode's error, word for word: whatever
    /// the short walk meets (structure, keys, dates, the current entry) or cannot vouch
    /// for goes to the whole decode.
    @Test(arguments: [
        "",
        "not json",
        "[]",
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{}}]"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{}}]} x"#,
        #"{"policy":{"kind":"atEnd"}}"#,
        #"{"entries":[],"extra":1}"#,
        #"{"entries":[],"entries":[]}"#,
        #"{"entries":{}}"#,
        #"{"entries":[{"date":"yesterday","fields":{}}]}"#,
        #"{"entries":[{"fields":{}}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z"}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{},"colour":"red"}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","date":"2026-01-01T00:00:00Z","fields":{}}]}"#,
        #"{"entries":[1]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":1,"privacy":"secret"}}}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":1}},"relevance":{"score":1}}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"":{"value":1}}}]}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":1}}},{"date":"2026-01-01T00:10:00Z","fields":{"n":{"value":1}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{}}],"policy":{"kind":"soon"}}"#,
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{}}],"policy":{"kind":"atEnd","date":"2026-01-01T00:00:00Z"}}"#,
    ])
    func aBodyThatDoesNotDecodeIsTheSameError(_ text: String) {
        let bytes = Array(text.utf8)
        let now = Fixtures.at(60)
        var expected: InvalidTimeline?
        do { _ = try Timeline.decode(from: bytes) } catch { expected = error }
        var got: InvalidTimeline?
        do { _ = try Self.excerpt(bytes, at: now) } catch { got = error }
        #expect(expected != nil)
        #expect(got == expected)
    }

    /// The entry count limit holds for the excerpt as for the whole timeline.
    @Test func tooManyEntriesIsTheSameError() {
        let limits = TimelineLimits(maxEntries: 2, maxFieldsPerEntry: 64, maxFieldNameBytes: 128, maxValueBytes: 16_384, maxNestingDepth: 32)
        let bytes = Self.body(Timeline(entries: (0..<3).map { Self.entry(at: Double($0), $0) }))
        var expected: InvalidTimeline?
        do { _ = try Timeline.decode(from: bytes, limits: limits) } catch { expected = error }
        var got: InvalidTimeline?
        do {
            _ = try bytes.withUnsafeBytes { buffer in
                Result { () throws(InvalidTimeline) in try TimelineExcerpt.decode(from: buffer, at: Fixtures.t0, limits: limits) }
            }.get()
        } catch { got = error }
        #expect(expected != nil)
        #expect(got == expected)
    }
}
