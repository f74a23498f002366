import Testing
import StrictJSON
import WidgetModel

/// `JSONReader(validated:)` reads bytes already checked as JSON text (a call's
/// parameters, after the envelope scan) without checking strings for UTF-8 again: on
/// such bytes it must read, and refuse, exactly what the checking reader does.
@Suite struct ValidatedReaderTests {
    /// What a reader made of a text: the value and where it stopped, or the refusal.
    /// The value is compared as a value, never as its description, whose member order
    /// follows each dictionary's own hash seed.
    private enum Outcome: Equatable {
        case read(JSONValue, end: Int)
        case refused(String)
    }

    private static func outcome(_ text: String, validated: Bool) -> Outcome {
        Array(text.utf8).withUnsafeBytes { bytes in
            var reader = validated ? JSONReader(validated: bytes) : JSONReader(bytes)
            do throws(JSONReadError) {
                let value = try JSONValue.read(from: &reader)
                try reader.expectEnd()
                return .read(value, end: reader.offset)
            } catch {
                return .refused("\(error.kind) at \(error.offset): \(error.message)")
            }
        }
    }

    @Test(arguments: [
        #"{"a":"plain","b":"caf\u00e9 é","c":["\ud83d\ude00 😀","tab\tquote\"slash\/"],"d":{"k":[1,-0.5e3,true,null]}}"#,
        #"  ["", "\\", "\u0000", "日本語のテキスト that runs past eight bytes"]  "#,
        #"{"n":123456789012345678901234567890,"m":0.10}"#,
        // Refusals that are not about UTF-8 stay: a number past a Double, a repeated key.
        #"{"n":1e400}"#,
        #"{"k":1,"k":2}"#,
    ])
    func aValidatedReaderReadsWhatTheCheckingReaderReads(text: String) {
        Array(text.utf8).withUnsafeBytes { bytes in
            #expect(throws: Never.self) { try JSONReader.validate(bytes) }
        }
        #expect(Self.outcome(text, validated: true) == Self.outcome(text, validated: false))
    }
}
