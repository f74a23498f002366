import Foundation
import Testing
@testable import WidgetModel

@Suite struct TimelineCodingTests {
    @Test func decodesTheWireShapeOfDesignSectionTwo() throws {
        let timeline = try Timeline.decode(from: Fixtures.json("""
            {"entries":[
              {"date":"2026-01-01T00:10:00Z","fields":{"temp":{"value":21.5}}},
              {"date":"2026-01-01T01:00:00+01:00","relevance":{"score":0.8,"duration":3600},
               "fields":{"pin":{"value":"1234","privacy":"sensitive"},"city":{"value":"Oslo","privacy":"public"},
                         "raw":{"value":{"a":[1,true,null,"x"]},"privacy":null}}}
            ],"policy":{"kind":"after","date":"2026-01-01T02:00:00Z"}}
            """))
        // Sorted by date: 01:00+01:00 is 00:00Z, before 00:10Z.
        #expect(timeline.entries.map(\.date) == [Fixtures.t0, Fixtures.at(600)])
        let first = timeline.entries[0]
        #expect(first.relevance == Relevance(score: 0.8, duration: 3600))
        #expect(first.fields["pin"] == Field(value: .string("1234"), privacy: .sensitive))
        #expect(first.fields["city"] == Field(value: .string("Oslo"), privacy: .public))
        #expect(first.fields["raw"] == Field(value: .object(["a": .array([.number(1), .bool(true), .null, .string("x")])])))
        #expect(timeline.entries[1].relevance == nil)
        #expect(timeline.policy == .after(Fixtures.at(7200)))
    }

    @Test(arguments: [
        (#"{"entries":[]}"#, ReloadPolicy.atEnd),
        (#"{"entries":[],"policy":null}"#, .atEnd),
        (#"{"entries":[],"policy":{"kind":"atEnd"}}"#, .atEnd),
        (#"{"entries":[],"policy":{"kind":"atEnd","date":null}}"#, .atEnd),
        (#"{"entries":[],"policy":{"kind":"never"}}"#, .never),
        (#"{"entries":[],"policy":{"kind":"after","date":"2026-01-01T00:00:00Z"}}"#, .after(Fixtures.t0)),
    ])
    func policyDefaultsToAtEnd(json: String, policy: ReloadPolicy) throws {
        #expect(try Timeline.decode(from: Fixtures.json(json)).policy == policy)
    }

    @Test func encodesWhatItDecodesWithSortedKeys() throws {
        let json = #"{"entries":[{"date":"2026-01-01T00:00:00.5Z","fields":{"a":{"privacy":"public","value":[1,"x",null,{"k":false}]},"b":{"value":2}},"relevance":{"duration":60,"score":1}}],"policy":{"date":"2026-01-02T00:00:00Z","kind":"after"}}"#
        let timeline = try Timeline.decode(from: Fixtures.json(json))
        #expect(try Fixtures.encode(timeline) == json)
        #expect(try Fixtures.encode(ReloadPolicy.atEnd) == #"{"kind":"atEnd"}"#)
        #expect(try Fixtures.encode(ReloadPolicy.never) == #"{"kind":"never"}"#)
        #expect(try Fixtures.encode(Fixtures.placeholder).hasPrefix(#"{"fields":{"balance":{"privacy":"sensitive","value":"— €"}"#))
    }

    @Test func decodesFromARawBufferInPlace() throws {
        let bytes = Fixtures.json(#"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{}}]}"#)
        let timeline = try bytes.withUnsafeBytes { buffer in try Timeline.decode(from: buffer) }
        #expect(timeline.entries.count == 1)
        #expect(throws: InvalidTimeline(reason: "is empty; expected a JSON object")) {
            try Timeline.decode(from: UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    @Test func placeholderDecodesAndValidates() throws {
        let placeholder = try Placeholder.decode(from: Fixtures.json(#"{"fields":{"t":{"value":"--","privacy":"public"}}}"#))
        #expect(placeholder.fields["t"] == Field(value: .string("--"), privacy: .public))
        #expect(throws: InvalidTimeline(reason: #"placeholder.fields[""]: field name is empty"#)) {
            try Placeholder.decode(from: Fixtures.json(#"{"fields":{"":{"value":1}}}"#))
        }
    }

    @Test func jsonValueKeepsBooleansApartFromNumbers() throws {
        let values = try JSONDecoder().decode([JSONValue].self, from: Data("[true,1,0,false,\"1\",null]".utf8))
        #expect(values == [.bool(true), .number(1), .number(0), .bool(false), .string("1"), .null])
    }

    @Test func settingsRoundTripAndDefaultMissingKeys() throws {
        let settings = Settings(
            lockScreenWidgetsAccess: false, hiddenLockScreenWidgets: [Fixtures.otherWidget], hideSensitiveComplications: .selected,
            hiddenComplications: [Fixtures.widget])
        let json = try Fixtures.encode(settings).replacingOccurrences(of: "\\/", with: "/")
        #expect(json == #"{"hiddenComplications":["com.example.weather/forecast#lock-1"],"hiddenLockScreenWidgets":["\#(Fixtures.otherWidget)"],"hideSensitiveComplications":"selected","lockScreenWidgetsAccess":false}"#)
        #expect(try JSONDecoder().decode(Settings.self, from: Data(json.utf8)) == settings)
        #expect(try JSONDecoder().decode(Settings.self, from: Data("{}".utf8)) == Settings())
        #expect(Settings().lockScreenWidgetsAccess && Settings().hideSensitiveComplications == .off && Settings().hiddenComplications.isEmpty)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Settings.self, from: Data(#"{"hideSensitiveComplications":"some"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Settings.self, from: Data(#"{"hiddenComplications":["../x"]}"#.utf8))
        }
    }

    @Test(arguments: [
        (HideSensitiveComplications.off, [Fixtures.widget], false),
        (.all, [], true),
        (.selected, [Fixtures.widget], true),
        (.selected, [Fixtures.otherWidget], false),
    ])
    func settingsHideOnlyWhatTheyName(mode: HideSensitiveComplications, hidden: [WidgetID], hides: Bool) {
        #expect(Settings(hideSensitiveComplications: mode, hiddenComplications: hidden).hides(Fixtures.widget) == hides)
    }
}

/// The daemon decodes entries inside its own request types; the reason keeps the same path.
@Suite struct DecodingInsideOtherTypesTests {
    struct PutTimelineParameters: Decodable {
        let widget: WidgetID
        let entries: [Entry]
        let policy: ReloadPolicy?
        let placeholder: Placeholder?
    }

    private func reason(_ json: String) -> String? {
        do {
            _ = try JSONDecoder().decode(PutTimelineParameters.self, from: Data(json.utf8))
            return nil
        } catch {
            return InvalidTimeline(decoding: error).reason
        }
    }

    @Test func reasonsNameTheEntryAndFieldInARequest() {
        #expect(reason(#"{"widget":"a/b","entries":[{"date":"2026-01-01T00:00:00Z","fields":{"x":{"value":1,"privacy":"no"}}}]}"#)
            == #"entries[0].fields["x"].privacy: must be "sensitive" or "public""#)
        #expect(reason(#"{"widget":"a/b","entries":[],"placeholder":{"fields":{"t":{"value":1,"extra":2}}}}"#)
            == #"placeholder.fields["t"]: unknown key "extra""#)
        #expect(reason(#"{"widget":"a/b","entries":[{"date":"2026-01-01T00:00:00Z","fields":{"v":{"value":{"fields":{"value":[1,{"k":true}]}}}}}]}"#)
            == nil)
        #expect(reason(#"{"widget":"a/b","entries":[],"policy":{"kind":"after","date":"tomorrow"}}"#)
            == "policy.date: is not an RFC 3339 date-time such as 2026-01-31T08:00:00Z")
    }

    @Test func pathsInsideAValueQuoteEveryKey() {
        struct Probe: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { self.stringValue = "Index \(intValue)"; self.intValue = intValue }
        }
        let path: [any CodingKey] = [
            Probe(stringValue: "entries"), Probe(intValue: 2)!, Probe(stringValue: "fields"), Probe(stringValue: "fields"),
            Probe(stringValue: "value"), Probe(stringValue: "value"), Probe(intValue: 0)!, Probe(stringValue: "a\"b"),
        ]
        #expect(ModelPath.describe(path) == #"entries[2].fields["fields"].value["value"][0]["a\"b"]"#)
    }
}
