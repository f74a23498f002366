import Testing
import StrictJSON

/// `skipValue` skips objects without making key `String`s; it must accept, refuse and
/// report exactly as reading every key with `readObject` does.
@Suite struct SkipValueTests {
    /// The former `skipValue`: objects through `readObject`, keys decoded.
    static func referenceSkip(_ reader: inout JSONReader) throws(JSONReadError) {
        switch try reader.peek() {
        case .object: try reader.readObject { (reader, _) throws(JSONReadError) in try referenceSkip(&reader) }
        case .array: try reader.readArray { (reader, _) throws(JSONReadError) in try referenceSkip(&reader) }
        default: try reader.skipValue()
        }
    }

    static func outcome(_ bytes: [UInt8], _ skip: (inout JSONReader) throws(JSONReadError) -> Void) -> String {
        bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            do throws(JSONReadError) {
                try skip(&reader)
                return "ok at \(reader.offset)"
            } catch {
                return "\(error.kind) at \(error.offset): \(error.message)"
            }
        }
    }

    @Test func skippingObjectsMatchesReadingTheirKeys() {
        let seeds = [
            #"{"a":1,"b\u00e9":[true,null,{"c":"d\n"}],"":{}}"#, #"{ "k" : { "x" : [ ] } , "é" : "\ud83d\ude00" }"#,
            #"{"a":1,}"#, #"{"a" 1}"#, #"{1:2}"#, #"{"a":1"#, #"{"\ud800":1}"#, #"{"a\u0001":1}"#,
        ]
        let alphabet = Array(#"{}[]":,\ aé0-1eE.tfnu"#.utf8) + [0x00, 0x1F, 0xC3, 0xFF, 0xED, 0xA0]
        var generator = SystemRandomNumberGenerator()
        var differences: [String] = []
        for seed in seeds {
            let bytes = Array(seed.utf8)
            var samples = [bytes]
            for _ in 0..<2_000 {
                var mutated = bytes
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let index = Int.random(in: 0..<mutated.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: mutated[index] = alphabet.randomElement(using: &generator)!
                    case 1: mutated.insert(alphabet.randomElement(using: &generator)!, at: index)
                    default: if mutated.count > 1 { mutated.remove(at: index) }
                    }
                }
                samples.append(mutated)
            }
            for sample in samples {
                let skipped = Self.outcome(sample) { (reader) throws(JSONReadError) in try reader.skipValue() }
                let read = Self.outcome(sample) { (reader) throws(JSONReadError) in try Self.referenceSkip(&reader) }
                if skipped != read { differences.append("\(sample): \(skipped) vs \(read)") }
            }
        }
        let count = differences.count
        #expect(count == 0, "first differences: \(differences.prefix(3).joined(separator: "; "))")
        // The seeds themselves: valid ones are skipped whole, broken ones refused.
        #expect(Self.outcome(Array(seeds[0].utf8)) { (reader) throws(JSONReadError) in try reader.skipValue() } == "ok at \(seeds[0].utf8.count)")
        #expect(Self.outcome(Array(seeds[2].utf8)) { (reader) throws(JSONReadError) in try reader.skipValue() }.hasPrefix("syntax"))
    }
}
