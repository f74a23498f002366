import StrictJSON
import Testing
@testable import WidgetModel

/// A field's number is kept as its literal text through the model's reader and
/// canonical writer (issue 13, defect 10), or refused naming the field.
@Suite struct ExactNumberTests {
    static func document(_ literal: String) -> String {
        #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":\#(literal)}}}],"policy":{"kind":"never"}}"#
    }

    static func canonical(_ timeline: Timeline) -> String {
        var counter = JSONWriter()
        timeline.write(to: &counter)
        var bytes = [UInt8](repeating: 0, count: counter.count)
        bytes.withUnsafeMutableBytes { buffer in
            var writer = JSONWriter(into: buffer)
            timeline.write(to: &writer)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [
        "123456789012345678901234567890", "-123456789012345678901234567890", "-0", "0.1", "1E5", "1e5", "1.50",
        "0", "-1.5e-7", "1e-400", "12345678901234567", "[1E5,-0,{\"a\":0.10}]",
    ])
    func aNumberIsWrittenBackAsItWasRead(literal: String) throws {
        let timeline = try Timeline.decode(from: Array(Self.document(literal).utf8))
        // Keys come out sorted; the value's text is the provider's, byte for byte.
        #expect(Self.canonical(timeline) == Self.document(literal))
        // And it reads back to an equal timeline.
        #expect(try Timeline.decode(from: Array(Self.canonical(timeline).utf8)) == timeline)
    }

    @Test(arguments: ["1e400", "-1e400", "[0,1e999]", "123e456789"])
    func aNumberNoDoubleCanHoldIsRefusedNamingTheField(literal: String) {
        #expect(throws: InvalidTimeline.self) { try Timeline.decode(from: Array(Self.document(literal).utf8)) }
        do {
            _ = try Timeline.decode(from: Array(Self.document(literal).utf8))
        } catch {
            #expect(error.reason.hasPrefix(#"entries[0].fields["n"].value"#), "\(error.reason)")
        }
    }
}
