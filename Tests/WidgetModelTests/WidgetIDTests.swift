import Foundation
import Testing
@testable import WidgetModel

@Suite struct WidgetIDTests {
    @Test(arguments: [
        ("com.example.weather/forecast", "com.example.weather", "forecast", nil as String?),
        ("com.example.weather/forecast#lock-1", "com.example.weather", "forecast", "lock-1"),
        ("a/b#c#d", "a", "b", "c#d"),
    ])
    func parsesProviderKindAndInstance(text: String, provider: String, kind: String, instance: String?) throws {
        let id = try WidgetID(text)
        #expect(id.provider == provider)
        #expect(id.kind == kind)
        #expect(id.instance == instance)
        #expect(id.description == text)
    }

    @Test(arguments: [
        ("", WidgetID.Invalid.empty),
        ("../etc/passwd", .dotDot),
        ("com.example/../x", .dotDot),
        ("com.example/..", .dotDot),
        ("com.example/kind#..", .dotDot),
        ("com.example/kind\u{0}", .notPrintableASCII),
        ("com.example/k ind", .notPrintableASCII),
        ("com.example/kind\n", .notPrintableASCII),
        ("com.exämple/kind", .notPrintableASCII),
        ("com.example/kïnd", .notPrintableASCII),
        ("com.example/😀", .notPrintableASCII),
        ("com.example", .missingKind),
        ("com.example/kind/extra", .missingKind),
        ("/etc/passwd", .missingKind),
        ("com.example#i/kind", .missingKind),
        ("/kind", .emptyComponent),
        ("com.example/", .emptyComponent),
        ("com.example/kind#", .emptyComponent),
        ("com.example/#i", .emptyComponent),
    ])
    func rejectsHostileIDs(text: String, reason: WidgetID.Invalid) {
        #expect(throws: reason) { try WidgetID(text) }
    }

    @Test func acceptsAtMostTwoHundredFiftyFiveBytes() throws {
        let prefix = "com.example/"
        let longest = prefix + String(repeating: "k", count: WidgetID.maximumLength - prefix.utf8.count)
        #expect(try WidgetID(longest).description == longest)
        #expect(throws: WidgetID.Invalid.tooLong(256)) { try WidgetID(longest + "k") }
        #expect(throws: WidgetID.Invalid.tooLong(100_012)) { try WidgetID(prefix + String(repeating: "k", count: 100_000)) }
    }

    @Test func decodingRejectsAnInvalidIDWithItsReason() {
        let data = Data(#"["../x"]"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([WidgetID].self, from: data) }
        #expect((try? JSONDecoder().decode([WidgetID].self, from: Data(#"["a/b#c"]"#.utf8))) == [try! WidgetID("a/b#c")])
    }

    @Test func providerIDsRefuseSlashHashAndDotDot() {
        #expect(WidgetID.isValidProviderID("com.example.weather"))
        for bad in ["", "a/b", "a#b", "a..b", "a b", "ä", String(repeating: "a", count: 256)] {
            #expect(!WidgetID.isValidProviderID(bad), "\(bad)")
        }
    }
}

/// The byte-level parser against the former `String.split`/`contains` one, kept here as
/// the reference: the same components, or the same error, for every short id over an
/// alphabet of the characters that matter.
@Suite struct WidgetIDParserEquivalenceTests {
    private enum Parsed: Equatable {
        case id(String, String, String?)
        case invalid(WidgetID.Invalid)
    }

    private static func reference(_ text: String) -> Parsed {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return .invalid(.empty) }
        guard bytes.count <= WidgetID.maximumLength else { return .invalid(.tooLong(bytes.count)) }
        guard bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { return .invalid(.notPrintableASCII) }
        guard !text.contains("..") else { return .invalid(.dotDot) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .invalid(.missingKind) }
        let provider = String(parts[0])
        let rest = parts[1].split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let kind = String(rest[0])
        let instance = rest.count == 2 ? String(rest[1]) : nil
        guard !provider.isEmpty, !kind.isEmpty, instance?.isEmpty != true else { return .invalid(.emptyComponent) }
        guard !provider.contains("#") else { return .invalid(.missingKind) }
        return .id(provider, kind, instance)
    }

    private static func parsed(_ text: String) -> Parsed {
        do throws(WidgetID.Invalid) {
            let id = try WidgetID(text)
            return .id(id.provider, id.kind, id.instance)
        } catch {
            return .invalid(error)
        }
    }

    @Test func everyShortIDParsesAsBefore() {
        let alphabet = ["a", ".", "/", "#", " ", "é"]
        var texts = [""]
        var checked = 0
        for _ in 0..<6 {
            texts = texts.flatMap { t in alphabet.map { t + $0 } }
            for text in texts {
                #expect(Self.parsed(text) == Self.reference(text), "\(text)")
                checked += 1
            }
        }
        #expect(checked == 55_986)
    }
}
