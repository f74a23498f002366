import Testing
import StrictJSON

/// `readObjectMatching` hands keys in place: it must accept, refuse and report exactly
/// as `readObject` does, and each key must match the literal its unescaped text spells.
@Suite struct JSONKeyTests {
    /// What `read` collects of the object in `json`, and where the reader stopped; or the error.
    static func outcome(_ json: String, _ read: (inout JSONReader, inout [String]) throws(JSONReadError) -> Void) -> String {
        Array(json.utf8).withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            var seen: [String] = []
            do throws(JSONReadError) {
                try read(&reader, &seen)
                return seen.joined(separator: ",") + " at \(reader.offset)"
            } catch {
                return "\(error.kind) at \(error.offset): \(error.message)"
            }
        }
    }

    /// Every key, as text or as whether it matches "date", read with `readObjectMatching`.
    static func keys(_ json: String) -> String {
        outcome(json) { (reader, seen) throws(JSONReadError) in
            try reader.readObjectMatching { (reader, key) throws(JSONReadError) in
                switch key {
                case "date": seen.append("date!")
                default: seen.append(key.text)
                }
                try reader.skipValue()
            }
        }
    }

    /// The same with `readObject`'s `String` keys.
    static func reference(_ json: String) -> String {
        outcome(json) { (reader, seen) throws(JSONReadError) in
            try reader.readObject { (reader, key) throws(JSONReadError) in
                seen.append(key == "date" ? "date!" : key)
                try reader.skipValue()
            }
        }
    }

    @Test(arguments: [
        #"{"date":1,"dat":2,"datex":3,"":4}"#,
        #"{"\u0064ate":1,"d\u00e9":2,"a\"b":3}"#,
        #" { "date" : [ ] , "é" : { } } "#,
        #"{}"#, #"[]"#, #"{"date"}"#, #"{"date":1,}"#, #"{date:1}"#, "{\"a\u{1}\":1}", "{\"\\ud800\":1}",
    ])
    func keysInPlaceAreReadAsStringKeys(json: String) {
        #expect(Self.keys(json) == Self.reference(json))
    }

    @Test func anEscapedKeyMatchesWhatItSpells() {
        #expect(Self.keys(#"{"\u0064ate":1}"#) == "date! at 15")
        #expect(Self.keys(#"{"dat\u0065x":1}"#) == "datex at 16")
    }
}
