import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// DESIGN §12: what each layout role accepts, row by row. A value that does not fit its
/// role is `InvalidTimeline` naming the field and the rule (never the value); nothing
/// about a field without a role changes.
@Suite struct LayoutRoleRulesTests {
    private func reason(field: String) -> String? {
        let json = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"f":\#(field)}}]}"#
        do {
            _ = try Timeline.decode(from: Fixtures.json(json))
            return nil
        } catch {
            return error.reason
        }
    }

    @Test(arguments: [
        #"{"value":"Lyon","role":"title"}"#,
        #"{"value":18,"role":"value"}"#,
        #"{"value":"light rain","role":"detail"}"#,
        #"{"value":"weather-showers-symbolic","role":"icon"}"#,
        #"{"value":0.4,"role":"gauge"}"#,
        #"{"value":72,"role":"gauge","range":[0,100]}"#,
        #"{"value":-5,"role":"gauge","range":[-10,10]}"#,
        #"{"value":"2026-01-01T09:30:00+01:00","role":"date","style":"timer"}"#,
        #"{"value":"2026-01-01T09:30:00Z","role":"date"}"#,
        #"{"value":{"any":"json"}}"#,
        #"{"value":"x","role":null,"range":null,"style":null}"#,
    ])
    func acceptsValuesThatFitTheirRole(field: String) {
        #expect(reason(field: field) == nil)
    }

    @Test(arguments: [
        (#"{"value":"72","role":"gauge"}"#, #"entries[0].fields["f"]: role "gauge": value must be a number"#),
        (#"{"value":1.5,"role":"gauge"}"#, #"entries[0].fields["f"]: role "gauge": value lies outside its range [0, 1]"#),
        (#"{"value":101,"role":"gauge","range":[0,100]}"#, #"entries[0].fields["f"]: role "gauge": value lies outside its range [0, 100]"#),
        (#"{"value":5,"role":"gauge","range":[10,0]}"#, #"entries[0].fields["f"]: range: is upside down; min must be less than max"#),
        (#"{"value":5,"role":"gauge","range":[1]}"#, #"entries[0].fields["f"].range: must be [min, max]: two numbers"#),
        (#"{"value":5,"role":"gauge","range":[0,"9"]}"#, #"entries[0].fields["f"].range: must be [min, max]: two numbers"#),
        (#"{"value":5,"role":"value","range":[0,9]}"#, #"entries[0].fields["f"]: "range" is only allowed with role "gauge""#),
        (#"{"value":"/usr/share/icons/x.png","role":"icon"}"#, #"entries[0].fields["f"]: role "icon": value must be an icon name: 1 to 64 bytes of a-z, 0-9 and "-" (never a path or URL)"#),
        (#"{"value":"https://example.com/i.png","role":"icon"}"#, #"entries[0].fields["f"]: role "icon": value must be an icon name: 1 to 64 bytes of a-z, 0-9 and "-" (never a path or URL)"#),
        (#"{"value":"\#(String(repeating: "a", count: 65))","role":"icon"}"#, #"entries[0].fields["f"]: role "icon": value must be an icon name: 1 to 64 bytes of a-z, 0-9 and "-" (never a path or URL)"#),
        (#"{"value":"tomorrow","role":"date"}"#, #"entries[0].fields["f"]: role "date": value must be an RFC 3339 date"#),
        (#"{"value":"2026-01-01T09:30:00Z","role":"date","style":"soon"}"#, #"entries[0].fields["f"].style: must be "time", "date", "relative" or "timer""#),
        (#"{"value":"x","role":"headline"}"#, #"entries[0].fields["f"].role: must be "title", "value", "detail", "icon", "gauge" or "date""#),
        (#"{"value":"x","role":"title","style":"time"}"#, #"entries[0].fields["f"]: "style" is only allowed with role "date""#),
    ])
    func refusesValuesThatDoNotFitTheirRole(field: String, expected: String) {
        #expect(reason(field: field) == expected)
    }

    @Test func theCodablePathRefusesWhatTheReaderRefuses() throws {
        // Both decoders of the model name the same problem the same way.
        let field = #"{"value":"x","role":"headline"}"#
        let json = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"f":\#(field)}}]}"#
        let viaCodable = Result { try JSONDecoder().decode(Timeline.self, from: Data(json.utf8)) }
        guard case .failure(let error) = viaCodable else { Issue.record("decoded"); return }
        #expect(InvalidTimeline(decoding: error).reason == reason(field: field))
    }

    @Test func rolesRangesAndStylesSurviveTheCanonicalBody() throws {
        // Names in sorted order: the `Codable` path reads fields sorted.
        let json = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"ends":{"value":"2026-01-01T10:00:00Z","role":"date","style":"relative","privacy":"public"},"level":{"value":72,"role":"gauge","range":[0,100]}}}]}"#
        let timeline = try Timeline.decode(from: Fixtures.json(json))
        let body = JSONWriter.bytes { timeline.write(to: &$0) }
        #expect(String(decoding: body, as: UTF8.self)
            == #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"ends":{"privacy":"public","role":"date","style":"relative","value":"2026-01-01T10:00:00Z"},"level":{"range":[0,100],"role":"gauge","value":72}}}],"policy":{"kind":"atEnd"}}"#)
        let reread = try body.withUnsafeBytes { try Timeline.decode(from: $0) }
        #expect(reread == timeline)
        #expect(try JSONDecoder().decode(Timeline.self, from: Data(body)) == timeline)
    }

    @Test func aTimelineStoredBeforeRolesStillOpens() throws {
        // The body an older widgetd wrote: no role, range, style or actions anywhere.
        let old = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"privacy":"sensitive","value":"x"}}}],"policy":{"kind":"atEnd"}}"#
        let timeline = try Timeline.decode(from: Fixtures.json(old))
        #expect(timeline.entries[0].fields["t"]?.role == nil)
        #expect(timeline.entries[0].actions.isEmpty)
        let excerpt = try Fixtures.json(old).withUnsafeBytes { try TimelineExcerpt.decode(from: $0, at: Date()) }
        #expect(excerpt.entry == timeline.entries[0])
    }

    @Test func redactionKeepsTheRoleAndStyleButNeverTheValue() throws {
        let entry = Entry(
            date: Fixtures.at(0),
            fields: [
                "ends": Field(value: .string("2026-01-01T10:00:00Z"), privacy: .sensitive, role: .date, style: .timer),
                "level": Field(value: .number(JSONNumber(7)), privacy: .sensitive, role: .gauge, range: GaugeRange(lowerBound: 0, upperBound: 9)),
            ])
        let presentation = PresentationRules.present(
            .redacted, widget: Fixtures.widget, timeline: Timeline(entries: [entry], policy: .never), placeholder: nil,
            reloadDue: nil, surface: .lockScreen, now: Fixtures.at(1), state: .locked)
        let ends = try #require(presentation.entry.fields["ends"])
        #expect(ends.redacted && ends.value == .null && ends.role == .date && ends.style == .timer)
        let level = try #require(presentation.entry.fields["level"])
        // The stored range may say something of the value: only the stand-in's is shown.
        #expect(level.redacted && level.value == .null && level.role == .gauge && level.range == nil)
    }
}
