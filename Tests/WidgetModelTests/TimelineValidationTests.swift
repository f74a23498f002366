import Foundation
import Testing
@testable import WidgetModel

/// One test per rejected input; each asserts that the reason names the entry and field.
@Suite struct TimelineValidationTests {
    private func reason(_ json: String, limits: TimelineLimits = .default) -> String? {
        do {
            _ = try Timeline.decode(from: Fixtures.json(json), limits: limits)
            return nil
        } catch {
            return error.reason
        }
    }

    private func entries(_ entries: String) -> String { #"{"entries":[\#(entries)]}"# }
    private let good = #"{"date":"2026-01-01T00:00:00Z","fields":{"ok":{"value":1}}}"#

    @Test func acceptsAValidTimeline() {
        #expect(reason(entries(good + "," + good)) == nil)
    }

    @Test func rejectsABadDate() {
        #expect(reason(entries(good + #",{"date":"2026-02-30T00:00:00Z","fields":{}}"#))
            == "entries[1].date: has a day out of range")
    }

    @Test func rejectsADateWithoutOffset() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00","fields":{}}"#))
            == "entries[0].date: is not an RFC 3339 date-time such as 2026-01-31T08:00:00Z")
    }

    @Test func rejectsADateThatIsNotAString() {
        #expect(reason(entries(#"{"date":1767225600,"fields":{}}"#)) == "entries[0].date: expected a string")
    }

    @Test func rejectsAMissingDate() {
        #expect(reason(entries(good + #",{"fields":{}}"#)) == #"entries[1]: missing "date""#)
    }

    @Test func rejectsAnUnknownPrivacyValue() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"temp":{"value":1,"privacy":"secret"}}}"#))
            == #"entries[0].fields["temp"].privacy: must be "sensitive" or "public""#)
    }

    @Test func rejectsAPrivacyThatIsNotAString() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"temp":{"value":1,"privacy":true}}}"#))
            == #"entries[0].fields["temp"].privacy: must be "sensitive" or "public""#)
    }

    @Test func rejectsAnEmptyFieldName() {
        #expect(reason(entries(good + "," + good + #",{"date":"2026-01-01T00:00:00Z","fields":{"":{"value":1}}}"#))
            == #"entries[2].fields[""]: field name is empty"#)
    }

    @Test func rejectsFieldsThatAreNotAnObjectOfNamedFields() {
        // JSON keys are always strings; names that are not strings can only come as an array.
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":[{"value":1}]}"#))
            == #"entries[0].fields: must be an object mapping field names to {"value": …}"#)
    }

    @Test func rejectsAFieldNameWithAControlCharacter() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"a\nb":{"value":1}}}"#))
            == #"entries[0].fields["a\u{a}b"]: field name contains a control character"#)
    }

    @Test func rejectsAnOverlongFieldNameAndQuotesItShortened() throws {
        let name = String(repeating: "n", count: 129)
        let got = try #require(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"\#(name)":{"value":1}}}"#)))
        #expect(got == #"entries[0].fields[""# + String(repeating: "n", count: 64) + #"…"]: field name is 129 bytes; at most 128 are allowed"#)
    }

    @Test func rejectsAFieldWithoutValue() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"temp":{"privacy":"public"}}}"#))
            == #"entries[0].fields["temp"]: missing "value""#)
    }

    @Test func rejectsAnUnknownKeyInAField() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"temp":{"value":1,"privcy":"sensitive"}}}"#))
            == #"entries[0].fields["temp"]: unknown key "privcy""#)
    }

    @Test func rejectsAnUnknownKeyInAnEntry() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{},"colour":"red"}"#))
            == #"entries[0]: unknown key "colour""#)
    }

    @Test func rejectsTooManyEntries() {
        let many = Array(repeating: good, count: 1001).joined(separator: ",")
        #expect(reason(entries(many)) == "entries: 1001 entries; at most 1000 are allowed")
    }

    @Test func rejectsTooManyFields() {
        let fields = (0..<65).map { #""f\#($0)":{"value":\#($0)}"# }.joined(separator: ",")
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{\#(fields)}}"#))
            == "entries[0].fields: 65 fields; at most 64 are allowed")
    }

    @Test func rejectsAValueTooLarge() {
        let big = String(repeating: "x", count: 16 * 1024)
        #expect(reason(entries(good + #",{"date":"2026-01-01T00:00:00Z","fields":{"blob":{"value":"\#(big)"}}}"#))
            == #"entries[1].fields["blob"]: value is larger than 16384 bytes as JSON"#)
        // Just under the limit passes: the string and its two quotes.
        let fits = String(repeating: "x", count: 16 * 1024 - 2)
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"blob":{"value":"\#(fits)"}}}"#)) == nil)
    }

    @Test func rejectsAValueNestedTooDeep() {
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"tree":{"value":\#(deep)}}}"#))
            == #"entries[0].fields["tree"]: value nests arrays and objects deeper than 32 levels"#)
        let allowed = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"tree":{"value":\#(allowed)}}}"#)) == nil)
    }

    @Test func rejectsHostileNestingWithoutExhaustingTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"tree":{"value":\#(deep)}}}"#)) == "is not valid JSON")
    }

    @Test func aNonFiniteNumberCannotBeBuilt() {
        // JSON text cannot spell NaN or infinity, and since issue 13 a field's number is
        // its text: one out of a Double's range has no JSONNumber either.
        for text in ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1 ", "01", "+1", ".5", ""] {
            #expect(JSONNumber(text) == nil, "\(text)")
        }
        #expect(JSONNumber("1e308")?.text == "1e308")
    }

    @Test func rejectsANumberTooLargeForADouble() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"temp":{"value":1e400}}}"#)) != nil)
    }

    @Test func rejectsANonFiniteRelevance() {
        let entry = Entry(date: Fixtures.t0, relevance: Relevance(score: .nan, duration: 1), fields: [:])
        #expect(throws: InvalidTimeline(reason: "entries[0].relevance.score: is not a finite number")) {
            try TimelineValidator.validate(entries: [entry])
        }
    }

    @Test func rejectsANegativeRelevanceDuration() {
        #expect(reason(entries(#"{"date":"2026-01-01T00:00:00Z","relevance":{"score":1,"duration":-5},"fields":{}}"#))
            == "entries[0].relevance.duration: must be a finite number of seconds, 0 or more")
    }

    @Test func rejectsAnUnknownPolicyKind() {
        #expect(reason(#"{"entries":[],"policy":{"kind":"sometimes"}}"#)
            == #"policy.kind: must be "atEnd", "after" or "never""#)
    }

    @Test func rejectsAnAfterPolicyWithoutDate() {
        #expect(reason(#"{"entries":[],"policy":{"kind":"after"}}"#) == #"policy: kind "after" needs a "date""#)
    }

    @Test func rejectsADateOnAnAtEndPolicy() {
        #expect(reason(#"{"entries":[],"policy":{"kind":"atEnd","date":"2026-01-01T00:00:00Z"}}"#)
            == #"policy.date: is only allowed with kind "after""#)
    }

    @Test func rejectsAnEntryDateOutsideTheWritableYears() {
        let entry = Entry(date: RFC3339.end, fields: [:])
        #expect(throws: InvalidTimeline(reason: "entries[0].date: is outside the years 0000–9999")) {
            try TimelineValidator.validate(entries: [entry])
        }
    }

    @Test func rejectsMalformedJSON() {
        #expect(reason(#"{"entries":[{"date":"#) == "is not valid JSON")
    }

    @Test func rejectsEntriesThatAreNotAnArray() {
        #expect(reason(#"{"entries":{}}"#) == "entries: expected an array")
    }

    @Test func reasonsNeverQuoteAFieldValue() {
        let secret = Fixtures.secret
        let inputs = [
            entries(#"{"date":"\#(secret)","fields":{}}"#),
            entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"f":{"value":"\#(secret)","privacy":"\#(secret)"}}}"#),
            entries(#"{"date":"2026-01-01T00:00:00Z","fields":{"f":{"value":"\#(secret)\#(String(repeating: "x", count: 20000))"}}}"#),
            #"{"entries":[],"policy":{"kind":"\#(secret)"}}"#,
        ]
        for input in inputs {
            let got = reason(input)
            #expect(got != nil)
            #expect(got?.contains(secret) == false, "\(got ?? "")")
        }
    }

    @Test func appendedEntriesAreValidatedAgainstTheSameLimits() {
        let limits = TimelineLimits(maxEntries: 2, maxFieldsPerEntry: 64, maxFieldNameBytes: 128, maxValueBytes: 1024, maxNestingDepth: 4)
        let appended = Timeline(entries: [Fixtures.entry(at: 0), Fixtures.entry(at: 1)]).appending([Fixtures.entry(at: 2)])
        #expect(throws: InvalidTimeline(reason: "entries: 3 entries; at most 2 are allowed")) {
            try TimelineValidator.validate(appended, limits: limits)
        }
    }
}
