import Testing
import StrictJSON

/// The word-at-a-time scans agree with a byte-by-byte loop at every start offset, on
/// random bytes biased towards the bytes they look for and the word boundaries.
@Suite struct JSONByteScanTests {
    static let interesting: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x5B, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]

    static func samples() -> [[UInt8]] {
        var generator = SystemRandomNumberGenerator()
        return (0..<3_000).map { index in
            let length = index % 40
            let density = [0, 1, 4, 16][index % 4]
            return (0..<length).map { _ in
                Int.random(in: 0..<32, using: &generator) < density
                    ? interesting.randomElement(using: &generator)!
                    : UInt8.random(in: 0x23...0x7E, using: &generator)
            }
        }
    }

    @Test func firstSpecialMatchesAByteLoop() {
        for sample in Self.samples() {
            sample.withUnsafeBytes { bytes in
                for start in 0...bytes.count {
                    let expected = (start..<bytes.count).first { bytes[$0] == 0x22 || bytes[$0] == 0x5C || bytes[$0] < 0x20 } ?? bytes.count
                    #expect(JSONByteScan.firstSpecial(in: bytes, from: start) == expected, "\(sample) from \(start)")
                }
            }
        }
    }

    @Test func firstNonASCIIMatchesAByteLoop() {
        for sample in Self.samples() {
            sample.withUnsafeBytes { bytes in
                for start in 0...bytes.count {
                    let expected = (start..<bytes.count).first { bytes[$0] >= 0x80 } ?? bytes.count
                    #expect(JSONByteScan.firstNonASCII(in: bytes, from: start) == expected, "\(sample) from \(start)")
                }
            }
        }
    }
}
