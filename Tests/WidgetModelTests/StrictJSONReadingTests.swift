import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// The strict reader rejects at least what the `Codable` path rejects, with the same
/// reasons, and also what that path let through (duplicate keys, lone surrogates).
@Suite struct StrictJSONReadingTests {
    private static let date = "2026-01-01T00:00:00Z"

    /// A timeline whose first entry has `fields`.
    /// A `fields` object of `f0`, `f1`, … with `name` given again at position `at`.
    private static func manyFields(repeating name: String, at: Int) -> String {
        var names = (0..<24).map { "f\($0)" }
        names.insert(name, at: at)
        return "{" + names.map { #""\#($0)":{"value":1}"# }.joined(separator: ",") + "}"
    }

    private static func withFields(_ fields: String) -> String {
        #"{"entries":[{"date":"\#(date)","fields":\#(fields)}]}"#
    }

    /// What the old path (JSONDecoder, then the validator) says about `bytes`.
    private func codableReason(_ bytes: [UInt8]) -> String? {
        do {
            let timeline = try JSONDecoder().decode(Timeline.self, from: Data(bytes))
            try TimelineValidator.validate(timeline)
            return nil
        } catch {
            return (error as? InvalidTimeline)?.reason ?? InvalidTimeline(decoding: error).reason
        }
    }

    private func strictReason(_ bytes: [UInt8]) -> String? {
        do {
            _ = try Timeline.decode(from: bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    /// Inputs both paths reject, with the same reason.
    @Test(arguments: [
        (#"{"entries":[{"date":5,"fields":{}}]}"#, "entries[0].date: expected a string"),
        (#"{"entries":[{"date":null,"fields":{}}]}"#, "entries[0].date: is null; expected a string"),
        (#"{"entries":[{"date":"yesterday","fields":{}}]}"#, "entries[0].date: is not an RFC 3339 date-time such as 2026-01-31T08:00:00Z"),
        (#"{"entries":[{"date":"\#(date)"}]}"#, #"entries[0]: missing "fields""#),
        (#"{"entries":[{"fields":{}}]}"#, #"entries[0]: missing "date""#),
        (#"{"entries":[{"date":"\#(date)","fields":{},"extra":1}]}"#, #"entries[0]: unknown key "extra""#),
        (withFields(#"{"a":{"value":1,"privacy":"no"}}"#), #"entries[0].fields["a"].privacy: must be "sensitive" or "public""#),
        (withFields(#"{"a":{"value":1,"privacy":3}}"#), #"entries[0].fields["a"].privacy: must be "sensitive" or "public""#),
        (withFields(#"{"a":{"privacy":"public"}}"#), #"entries[0].fields["a"]: missing "value""#),
        (withFields(#"{"a":{"value":1,"x":2}}"#), #"entries[0].fields["a"]: unknown key "x""#),
        (withFields(#"{"a":1}"#), #"entries[0].fields["a"]: expected an object"#),
        (withFields("[]"), #"entries[0].fields: must be an object mapping field names to {"value": …}"#),
        (withFields(#"{"a":{"value":1e400}}"#), #"entries[0].fields["a"].value: is malformed"#),
        (#"{"entries":[{"date":"\#(date)","fields":{},"relevance":{"score":1}}]}"#, #"entries[0].relevance: missing "duration""#),
        (#"{"entries":[{"date":"\#(date)","fields":{},"relevance":{"score":"1","duration":2}}]}"#, "entries[0].relevance.score: expected a number"),
        (#"{"entries":{}}"#, "entries: expected an array"),
        (#"{"entries":[],"policy":{"kind":"later"}}"#, #"policy.kind: must be "atEnd", "after" or "never""#),
        (#"{"entries":[],"policy":{"kind":"after"}}"#, #"policy: kind "after" needs a "date""#),
        (#"{"entries":[],"policy":{"kind":"never","date":"\#(date)"}}"#, #"policy.date: is only allowed with kind "after""#),
        (#"{"entries":[],"policy":{"kind":"after","date":7}}"#, "policy.date: expected a string"),
        (#"{"entries":[],"extra":{}}"#, #"unknown key "extra""#),
        (#"{}"#, #"missing "entries""#),
        ("[]", "expected an object"),
        (#"{"entries":[]} x"#, "is not valid JSON"),
    ])
    func rejectsWhatTheCodablePathRejects(json: String, reason: String) {
        #expect(strictReason(Array(json.utf8)) == reason)
        #expect(codableReason(Array(json.utf8)) == reason)
    }

    /// Inputs both paths reject; `JSONDecoder` parses lazily and names a type mismatch
    /// where the text is not JSON at all, the strict reader says so.
    @Test(arguments: [
        withFields(#"{"a":{"value":01}}"#),
        withFields(#"{"a":{"value":1.}}"#),
        withFields(#"{"a":{"value":-}}"#),
        withFields(#"{"a":{"value":"a\qb"}}"#),
        withFields("{\"a\":{\"value\":\"a\u{1}b\"}}"),
        withFields(#"{"a":{"value":tru}}"#),
        #"{"entries":[{"date":"\#(date)","fields":{}}"#,
    ])
    func rejectsWhatIsNotJSONText(json: String) {
        #expect(strictReason(Array(json.utf8)) == "is not valid JSON")
        #expect(codableReason(Array(json.utf8)) != nil)
    }

    /// Inputs only the strict reader rejects; the `Codable` path accepted them.
    @Test(arguments: [
        (#"{"entries":[],"entries":[]}"#, #"duplicate key "entries""#),
        (#"{"entries":[{"date":"\#(date)","date":"\#(date)","fields":{}}]}"#, #"entries[0]: duplicate key "date""#),
        (withFields(#"{"a":{"value":1},"a":{"value":2}}"#), #"entries[0].fields: duplicate field name "a""#),
        // Past 16 fields, names are checked against a set rather than scanned: a name
        // repeated on either side of that point, and after it.
        (withFields(manyFields(repeating: "f3", at: 20)), #"entries[0].fields: duplicate field name "f3""#),
        (withFields(manyFields(repeating: "f18", at: 22)), #"entries[0].fields: duplicate field name "f18""#),
        (withFields(manyFields(repeating: "f0", at: 16)), #"entries[0].fields: duplicate field name "f0""#),
        (withFields(#"{"a":{"value":{"k":1,"k":2}}}"#), #"entries[0].fields["a"].value: has a duplicate key"#),
        (withFields(#"{"a":{"value":1,"value":2}}"#), #"entries[0].fields["a"]: duplicate key "value""#),
        (#"{"entries":[],}"#, "is not valid JSON"),
        (withFields(#"{"a":{"value":[1,]}}"#), "is not valid JSON"),
        (withFields(#"{"a":{"value":"\ud800"}}"#), "is not valid JSON"),
        (withFields(#"{"a":{"value":"\udc00\ud800"}}"#), "is not valid JSON"),
    ])
    func rejectsDuplicatesAndLoneSurrogates(json: String, reason: String) {
        #expect(strictReason(Array(json.utf8)) == reason)
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        let invalid = Array(Self.withFields(#"{"a":{"value":"x"}}"#).utf8).map { $0 == UInt8(ascii: "x") ? 0xFF : $0 }
        #expect(strictReason(invalid) == "is not valid JSON")
        #expect(codableReason(invalid) == #"entries[0].fields["a"].value: is malformed"#)
        let deep = Self.withFields(#"{"a":{"value":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}}")
        #expect(strictReason(Array(deep.utf8)) == "is not valid JSON")
        // Within the reader's bound, the validator's own limit names the field.
        let nested = Self.withFields(#"{"a":{"value":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}}")
        #expect(strictReason(Array(nested.utf8)) == #"entries[0].fields["a"]: value nests arrays and objects deeper than 32 levels"#)
        #expect(codableReason(Array(nested.utf8)) == strictReason(Array(nested.utf8)))
    }

    @Test func readsEscapesAndPairedSurrogates() throws {
        let json = Self.withFields(#"{"a\/":{"value":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00é"}}"#)
        let timeline = try Timeline.decode(from: Array(json.utf8))
        #expect(timeline.entries[0].fields["a/"]?.value == .string("\"\\/\u{8}\u{c}\n\r\té😀é"))
        #expect(try JSONDecoder().decode(Timeline.self, from: Data(json.utf8)) == timeline)
    }

    /// The validate-only check of skipped strings agrees with the standard library's.
    @Test func utf8CheckAgreesWithTheStandardLibrary() {
        var random = CanonicalJSONTests.SeededGenerator(state: 7)
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &random)).map { _ in interesting.randomElement(using: &random)! }
            let expected = bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) != nil }
            let checked = bytes.withUnsafeBytes { JSONReader.isValidUTF8($0) }
            #expect(checked == expected, "\(bytes)")
            if checked != expected { return }
        }
    }

    @Test func pathsLeadToTheValue() {
        let json = Array(#"{"a":[0,{"b":[1,2,{"c":true}]}],"d":3}"#.utf8)
        json.withUnsafeBytes { bytes in
            let target = Array(bytes).firstIndex(of: UInt8(ascii: "t"))!
            #expect(JSONReader.path(to: target, in: bytes) == [.key("a"), .index(1), .key("b"), .index(2), .key("c")])
            #expect(JSONReader.path(to: 0, in: bytes) == [])
            #expect(JSONReader.path(to: json.count - 2, in: bytes) == [.key("d")])
        }
    }
}
