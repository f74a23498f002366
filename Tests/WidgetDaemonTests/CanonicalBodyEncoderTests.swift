import Foundation
import SecureMemory
import StrictJSON
import Testing
import WidgetModel

@testable import WidgetDaemon

/// The body the store seals is the same bytes whichever way it is written: in one walk
/// into the scratch, or measured first and written into a buffer of exactly its size.
@Suite struct CanonicalBodyEncoderTests {
    /// Timelines whose bodies hold every kind of field value, escapes, unicode and
    /// numbers as written, both policies with dates and entries out of order.
    static let corpus: [String] = [
        #"{"entries":[]}"#,
        #"{"entries":[{"date":"2026-01-31T08:00:00Z","fields":{}}],"policy":{"kind":"never"}}"#,
        #"""
        {"entries":[{"date":"2026-01-31T09:00:00.5+01:00","relevance":{"score":0.25,"duration":3600},
        "fields":{"z":{"value":"last"},"a":{"value":null,"privacy":"public"},"m":{"value":true,"privacy":"sensitive"}}}],
        "policy":{"kind":"after","date":"2026-02-01T00:00:00Z"}}
        """#,
        #"""
        {"entries":[{"date":"2026-01-31T08:00:00Z","fields":{
        "numbers":{"value":[0,-0,1E5,1e-7,0.10,123456789012345678901234567890,-1.5e+300,2.2250738585072014e-308]},
        "escapes":{"value":"quote \" backslash \\ slash \/ tab \t nl \n cr \r bs \b ff \f nul \u0000 us \u001f del \u007f"},
        "unicode":{"value":"é € 😀 \u00e9 \u20ac \ud83d\ude00 \ufeff","privacy":"public"},
        "nested":{"value":{"b":[{"y":1,"x":[]},{}],"a":{"deep":{"deeper":"\u0001"}},"":"empty key"}},
        "\"name\\with\/escapes\"":{"value":false},
        "ünïcödé name":{"value":-12.5}}}]}
        """#,
        // Out of date order, two on one date: sorted stably.
        #"""
        {"entries":[
        {"date":"2026-01-31T10:00:00Z","fields":{"n":{"value":3}}},
        {"date":"2026-01-31T08:00:00Z","fields":{"n":{"value":1}}},
        {"date":"2026-01-31T10:00:00Z","fields":{"n":{"value":4}}},
        {"date":"2026-01-31T09:00:00Z","fields":{"n":{"value":2}}}],"policy":{"kind":"atEnd"}}
        """#,
    ]

    static func timeline(_ json: String) throws -> Timeline {
        try Timeline.decode(from: Array(json.utf8))
    }

    static func bytes(_ body: SecureBytes) -> [UInt8] {
        body.withUnsafeBytes { Array($0) }
    }

    /// The canonical bytes written by a counting pass, then into an array of that size.
    static func measuredThenWritten(_ timeline: Timeline) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: timeline.canonicalJSONCount)
        bytes.withUnsafeMutableBytes { buffer in
            var writer = JSONWriter(into: buffer)
            timeline.write(to: &writer)
        }
        return bytes
    }

    /// A timeline whose body is `entries` entries of about 200 bytes each.
    static func large(entries: Int) throws -> Timeline {
        let items = (0..<entries).map { index in
            #"{"date":"2026-01-31T08:00:00Z","fields":{"text":{"value":"\#(index) \#(String(repeating: "é\\n\\\"", count: 40))"}}}"#
        }
        return try timeline(#"{"entries":[\#(items.joined(separator: ","))]}"#)
    }

    @Test(arguments: corpus.indices)
    func oneWalkWritesTheBytesOfMeasuringFirst(index: Int) throws {
        let timeline = try Self.timeline(Self.corpus[index])
        let encoder = CanonicalBodyEncoder()
        let expected = Self.bytes(try CanonicalBodyEncoder.encodeMeasuringFirst(timeline))
        // Twice: the scratch, zeroed after the first, serves the second the same.
        for _ in 0..<2 { #expect(Self.bytes(try encoder.encode(timeline)) == expected) }
        // And the model's own two passes, as the model's tests know them.
        #expect(expected == Self.measuredThenWritten(timeline))
    }

    @Test func theBytesAreTheCanonicalOnes() throws {
        let encoder = CanonicalBodyEncoder()
        let cases: [(String, String)] = [
            (Self.corpus[1], #"{"entries":[{"date":"2026-01-31T08:00:00Z","fields":{}}],"policy":{"kind":"never"}}"#),
            (
                #"{"entries":[{"date":"2026-01-31T08:00:00Z","fields":{"b":{"value":{"y":"\u00e9\u0001\/","x":1E5}},"a":{"privacy":"public","value":0.10}}}]}"#,
                #"{"entries":[{"date":"2026-01-31T08:00:00Z","fields":{"b":{"value":{"x":1E5,"y":"é\u0001/"}},"a":{"privacy":"public","value":0.10}}}],"policy":{"kind":"atEnd"}}"#
            ),
            (
                Self.corpus[4],
                #"{"entries":[{"date":"2026-01-31T08:00:00Z","fields":{"n":{"value":1}}},{"date":"2026-01-31T09:00:00Z","fields":{"n":{"value":2}}},{"date":"2026-01-31T10:00:00Z","fields":{"n":{"value":3}}},{"date":"2026-01-31T10:00:00Z","fields":{"n":{"value":4}}}],"policy":{"kind":"atEnd"}}"#
            ),
        ]
        for (input, canonical) in cases {
            #expect(String(decoding: Self.bytes(try encoder.encode(try Self.timeline(input))), as: UTF8.self) == canonical)
        }
    }

    /// A body larger than the scratch is measured first and written again: the same
    /// bytes, and the next small body still takes the scratch.
    @Test func aBodyLargerThanTheScratchIsWrittenExactlyAsWell() throws {
        let large = try Self.large(entries: 200)
        let expected = Self.bytes(try CanonicalBodyEncoder.encodeMeasuringFirst(large))
        #expect(expected.count > CanonicalBodyEncoder.scratchBytes)
        let encoder = CanonicalBodyEncoder()
        #expect(Self.bytes(try encoder.encode(large)) == expected)
        let small = try Self.timeline(Self.corpus[3])
        #expect(Self.bytes(try encoder.encode(small)) == Self.bytes(try CanonicalBodyEncoder.encodeMeasuringFirst(small)))
    }

    /// A writer into a buffer too small writes nothing past its end, counts the rest,
    /// and says that it did not fit.
    @Test func aWriterIntoTooSmallABufferStaysInsideIt() throws {
        let timeline = try Self.timeline(Self.corpus[3])
        let exact = Self.measuredThenWritten(timeline)
        for size in [0, 1, 7, exact.count / 2, exact.count - 1, exact.count, exact.count + 5] {
            var memory = [UInt8](repeating: 0xA5, count: size + 16)
            let (count, fits) = memory.withUnsafeMutableBytes { all in
                var writer = JSONWriter(into: UnsafeMutableRawBufferPointer(rebasing: all[0..<size]))
                timeline.write(to: &writer)
                return (writer.count, writer.fits)
            }
            #expect(count == exact.count && fits == (size >= exact.count))
            #expect(memory[size...].allSatisfy { $0 == 0xA5 }, "written past the end at size \(size)")
            if fits { #expect(Array(memory[0..<count]) == exact) }
        }
    }
}
