import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// The canonical writer and the strict reader against the `Codable` path, on generated
/// timelines: each side reads what the other writes, to equal values.
@Suite struct CanonicalJSONTests {
    /// SplitMix64: a seeded generator, so that a failure can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func string(_ random: inout SeededGenerator, controls: Bool = true) -> String {
        let printable = ["a", "Z", "0", " ", "\"", "\\", "/", "é", "€", "😀", "\u{FEFF}", "key", "value", "fields"]
        let pieces = controls ? printable + ["\n", "\u{1}", "\u{1F}", "\u{7F}"] : printable
        return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func number(_ random: inout SeededGenerator) -> Double {
        switch Int.random(in: 0...5, using: &random) {
        case 0: return Double(Int.random(in: -1000...1000, using: &random))
        case 1: return Double.random(in: -1...1, using: &random)
        case 2: return Double.random(in: -1e300...1e300, using: &random)
        case 3: return Double(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 4: return [0.1, -0.0, Double.leastNonzeroMagnitude, 1e15, 1e16, 123456789012345.6, 2.2250738585072014e-308].randomElement(using: &random)!
        default:
            let any = Double(bitPattern: random.next())
            return any.isFinite ? any : 1
        }
    }

    static func value(_ random: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2:
            let number = number(&random)
            return .number(JSONNumber(number.isFinite ? number : 0))
        case 3: return .string(string(&random))
        case 4: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...3, using: &random) { members[string(&random)] = value(&random, depth: depth + 1) }
            return .object(members)
        }
    }

    /// Random fields, names sorted: the `Codable` path this is compared with hands keys
    /// over in no set order and sorts them (field order has tests of its own).
    static func fields(_ random: inout SeededGenerator) -> FieldList<Field> {
        var fields: [String: Field] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            fields["f" + string(&random, controls: false)] = Field(value: value(&random), privacy: [nil, .sensitive, .public].randomElement(using: &random)!)
        }
        return FieldList(sorting: fields)
    }

    static func timeline(seed: UInt64) -> Timeline {
        var random = SeededGenerator(state: seed)
        let entries = (0..<Int.random(in: 0...5, using: &random)).map { _ in
            Entry(
                date: Date(timeIntervalSince1970: Double(Int.random(in: -62_000_000_000...250_000_000_000, using: &random)) / 1000),
                relevance: Bool.random(using: &random)
                    ? Relevance(score: number(&random), duration: abs(number(&random))) : nil,
                fields: fields(&random))
        }
        let policy: ReloadPolicy = [.atEnd, .never, .after(Date(timeIntervalSince1970: 1_800_000_000.25))].randomElement(using: &random)!
        return Timeline(entries: entries, policy: policy)
    }

    static func canonical(_ timeline: Timeline) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: timeline.canonicalJSONCount)
        bytes.withUnsafeMutableBytes { buffer in
            var writer = JSONWriter(into: buffer)
            timeline.write(to: &writer)
            #expect(writer.count == buffer.count)
        }
        return bytes
    }

    /// The timeline with every field value's number as its Double's shortest text.
    static func asDoubles(_ timeline: Timeline) -> Timeline {
        func convert(_ value: JSONValue) -> JSONValue {
            switch value {
            case .number(let number): .number(JSONNumber(number.doubleValue))
            case .array(let items): .array(items.map(convert))
            case .object(let members): .object(members.mapValues(convert))
            case .null, .bool, .string: value
            }
        }
        return Timeline(entries: timeline.entries.map { entry in
            var entry = entry
            entry.fields = entry.fields.mapValues { Field(value: convert($0.value), privacy: $0.privacy) }
            return entry
        }, policy: timeline.policy)
    }

    @Test(arguments: 0..<300)
    func bothPathsReadWhatEitherWrites(seed: Int) throws {
        let generated = Self.timeline(seed: UInt64(seed))
        // What the Codable path keeps of the generated value (dates to the microsecond).
        // Keys sorted, so that fields come in the generated (sorted) order.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let codableBytes = try encoder.encode(generated)
        let expected = try JSONDecoder().decode(Timeline.self, from: codableBytes)
        let canonicalBytes = Self.canonical(expected)

        #expect(try Timeline.decode(from: canonicalBytes) == expected)
        #expect(try JSONDecoder().decode(Timeline.self, from: Data(canonicalBytes)) == expected)
        // JSONEncoder writes some numbers in another form (`1e+300`); the strict reader
        // keeps that text, which stands for the same Double.
        #expect(Self.asDoubles(try Timeline.decode(from: Array(codableBytes))) == expected)
        // Canonical means stable: writing what was read gives the same bytes.
        #expect(Self.canonical(try Timeline.decode(from: canonicalBytes)) == canonicalBytes)
    }

    @Test(arguments: 0..<100)
    func placeholdersRoundTrip(seed: Int) throws {
        var random = SeededGenerator(state: UInt64(seed) &+ 1_000_000)
        let placeholder = Placeholder(fields: Self.fields(&random))
        let bytes = placeholder.canonicalJSON
        #expect(try Placeholder.decode(from: bytes) == placeholder)
        #expect(try JSONDecoder().decode(Placeholder.self, from: Data(bytes)) == placeholder)
    }

    @Test func writesNumbersAsJSONDoes() {
        func written(_ value: Double) -> String {
            var counter = JSONWriter()
            counter.number(value)
            var bytes = [UInt8](repeating: 0, count: counter.count)
            bytes.withUnsafeMutableBytes { buffer in
                var writer = JSONWriter(into: buffer)
                writer.number(value)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(written(3) == "3")
        #expect(written(-0.0) == "-0")
        #expect(written(0.1) == "0.1")
        #expect(written(1e300) == "1e+300")
        #expect(written(-12.5) == "-12.5")
    }
}
