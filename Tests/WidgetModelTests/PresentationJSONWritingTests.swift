import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// The hand-written presentation writer sends the bytes the `Encodable` path would: for
/// every mode, reason, surface, field kind, privacy marking and optional member, with
/// escapes, unicode and exact numbers in the values, `Presentation.write(to:)` equals
/// `JSONTreeEncoder.bytes` of the same value, byte for byte, and its measuring pass
/// counts exactly what it writes.
@Suite struct PresentationJSONWritingTests {
    /// Both encodings of `presentation`, and the writer's counted size.
    static func encodings(_ presentation: Presentation) throws -> (tree: [UInt8], written: [UInt8], counted: Int) {
        let tree = try JSONTreeEncoder.bytes(presentation)
        let written = JSONWriter.bytes { presentation.write(to: &$0) }
        var counter = JSONWriter()
        presentation.write(to: &counter)
        return (tree, written, counter.count)
    }

    static func expectSameBytes(_ presentation: Presentation, _ label: @autoclosure () -> String) throws {
        let (tree, written, counted) = try encodings(presentation)
        #expect(written == tree, "\(label()): \(String(decoding: written, as: UTF8.self)) != \(String(decoding: tree, as: UTF8.self))")
        #expect(counted == written.count, "\(label())")
    }

    /// Every combination of the presentation's own members (mode, surface, flags, the
    /// optional dates and relevance), on an entry with a field of each privacy marking.
    @Test(arguments: PresentationMode.allCases, Surface.allCases)
    func everyModeAndSurfaceWritesTheEncodersBytes(mode: PresentationMode, surface: Surface) throws {
        for flags in 0..<32 {
            let reasons: [PresentationReason] = switch flags % 4 {
            case 0: []
            case 1: [.placeholder]
            case 2: [.privacy, .invalidated]
            default: PresentationReason.allCases
            }
            let entry = PresentedEntry(
                date: flags & 4 == 0 ? nil : Fixtures.at(0.25),
                relevance: flags & 8 == 0 ? nil : Relevance(score: 0.5, duration: 60),
                fields: [
                    "balance": PresentedField(value: .string("— €"), privacy: .sensitive, redacted: true),
                    "title": PresentedField(value: .string("Account"), privacy: .public),
                    "temp": PresentedField(value: .number(21.5)),
                    "gone": .replaced(by: nil),
                ])
            let presentation = Presentation(
                widget: Fixtures.widget, surface: surface, mode: mode, reasons: reasons,
                luminanceReduced: flags & 1 != 0, stale: flags & 2 != 0, entry: entry,
                validUntil: flags & 16 == 0 ? nil : Fixtures.at(600.5))
            try Self.expectSameBytes(presentation, "\(mode) \(surface) \(flags)")
        }
    }

    /// A placeholder's shape (no date, no relevance, no validUntil), an empty entry, and
    /// a field list of one field of each kind in a set order.
    @Test func placeholderAndEmptyEntriesWriteTheEncodersBytes() throws {
        let empty = PresentedEntry(date: nil, relevance: nil, fields: [:])
        let placeholder = PresentedEntry(date: nil, relevance: nil, fields: [
            "z": PresentedField(value: .string("--°")),
            "a": PresentedField(value: .string("Account"), privacy: .public),
            "m": .replaced(by: Field(value: .string("— €"))),
        ])
        for entry in [empty, placeholder] {
            let presentation = Presentation(
                widget: Fixtures.otherWidget, surface: .lockScreen, mode: .placeholder, reasons: [.placeholder],
                luminanceReduced: false, stale: false, entry: entry, validUntil: nil)
            try Self.expectSameBytes(presentation, "\(entry)")
        }
    }

    /// Many presentations drawn from a fixed seed: values of every JSON kind nested,
    /// strings with escapes, control characters and non-ASCII text, numbers whose text
    /// must be kept, dates with fractional seconds and at the ends of the range, object
    /// keys that sort differently by byte and by character, widget ids that need escapes.
    @Test(arguments: 0..<8)
    func randomPresentationsWriteTheEncodersBytes(seed: UInt64) throws {
        var generator = PresentationGenerator(seed: seed)
        for index in 0..<250 {
            let presentation = generator.presentation()
            try Self.expectSameBytes(presentation, "seed \(seed) #\(index)")
        }
    }
}

/// Builds varied presentations from a seed (SplitMix64), the same ones on every run.
struct PresentationGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    static let strings = [
        "", "plain", "quote\"d", "back\\slash", "new\nline\ttab\rreturn", "\u{0}nul", "\u{1F}unit\u{8}\u{C}",
        "\u{7F}del", "café", "e\u{301}", "日本語のテキスト", "emoji 👩‍👩‍👧 and 🇫🇷", "\u{2028}\u{2029}", "a/b", "</script>",
        String(repeating: "long ", count: 80), "\u{FEFF}bom", "tab\tafter", "\"\\\"", "0", "null", "true",
    ]
    static let keys = ["a", "b", "Z", "_", "é", "ä", "zz", "A1", "a\"q", "k\\", "ключ", "🔑", "", " ", "b\n"]
    static let numberTexts = [
        "0", "-0", "1", "-1", "1E5", "1e-7", "0.10", "123456789012345678901234567890", "3.14159", "-2.5E+10",
        "1.0", "100", "9007199254740993", "-0.0", "5e-324",
    ]
    static let doubles: [Double] = [
        0, -0.0, 1, -7, 0.5, 60, 123.456, 1e15 - 1, 1e15, 1e16, 1e-300, 2.5e-8, .greatestFiniteMagnitude,
        .leastNonzeroMagnitude, -1e21, 0.1 + 0.2, 86_400,
    ]
    static let widgets = [
        "com.example.weather/forecast", "com.example.weather/forecast#lock-1", "a/b#c", #"odd"quote/kind\back#i"#,
        "x.y/z#~!$%&'()*+,-:;<=>?@[]^_`{|}",
    ]

    /// One of `strings`, or two joined, so that escapes fall at other places in a run.
    mutating func string() -> String {
        let first = pick(Self.strings)
        return chance(15) ? first + pick(Self.strings) : first
    }

    mutating func number() -> JSONNumber {
        chance(50) ? JSONNumber(pick(Self.numberTexts))! : JSONNumber(pick(Self.doubles))
    }

    mutating func value(depth: Int = 0) -> JSONValue {
        switch below(depth >= 3 ? 4 : 6) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .number(number())
        case 3: return .string(string())
        case 4: return .array((0..<below(4)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<below(5) { members[pick(Self.keys)] = value(depth: depth + 1) }
            return .object(members)
        }
    }

    mutating func date() -> Date {
        switch below(6) {
        case 0: return RFC3339.earliest
        case 1: return RFC3339.end.addingTimeInterval(-0.000_001)
        case 2: return Date(timeIntervalSince1970: -86_400 * 365.25 * Double(below(1_900)) - Double(below(1_000_000)) / 1_000_000)
        case 3: return Fixtures.at(Double(below(1_000_000_000)) / 1_000)
        case 4: return Fixtures.at(Double(below(1_000_000_000)) / 10_000_000)  // finer than a microsecond
        default: return Fixtures.at(Double(below(100_000)))
        }
    }

    mutating func field() -> PresentedField {
        let privacy: Privacy? = pick([nil, .sensitive, .public])
        return PresentedField(value: value(), privacy: privacy, redacted: chance(30))
    }

    mutating func entry() -> PresentedEntry {
        var fields = FieldList<PresentedField>()
        for _ in 0..<below(8) {
            let name = chance(70) ? pick(Self.keys + ["title", "balance", "temp", "icon"]) : string()
            if !fields.contains(name: name) { fields.append(name, field()) }
        }
        return PresentedEntry(
            date: chance(70) ? date() : nil,
            relevance: chance(50) ? Relevance(score: pick(Self.doubles), duration: abs(pick(Self.doubles))) : nil,
            fields: fields)
    }

    mutating func presentation() -> Presentation {
        Presentation(
            widget: try! WidgetID(pick(Self.widgets)), surface: pick(Surface.allCases), mode: pick(PresentationMode.allCases),
            reasons: (0..<below(4)).map { _ in pick(PresentationReason.allCases) },
            luminanceReduced: chance(50), stale: chance(50), entry: entry(),
            validUntil: chance(50) ? date() : nil)
    }
}
