import FoundationEssentials

/// A timeline file's name as the 16-byte keyed digest it spells in hex: the one key
/// of a widget's file across the store, in the index, the journal's records and the
/// generation ledger, so the widget id itself names no path.
package struct FileDigest: Hashable, Sendable, CustomStringConvertible {
    /// The digest's first 8 bytes, big-endian.
    package let high: UInt64
    /// The digest's last 8 bytes, big-endian.
    package let low: UInt64

    /// The digest given as its two big-endian halves.
    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The digest of 16 bytes.
    package init(digest: some Collection<UInt8>) {
        precondition(digest.count == 16, "a file-name digest is 16 bytes")
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, byte) in digest.enumerated() {
            if i < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// The digest a timeline file name spells (32 lowercase hex digits and the extension),
    /// or `nil` for a name the store never makes.
    package init?(fileName: String) {
        let utf8 = fileName.utf8
        guard utf8.count == 32 + TimelineFile.fileExtension.utf8.count,
            fileName.hasSuffix(TimelineFile.fileExtension)
        else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for (i, c) in utf8.prefix(32).enumerated() {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            default: return nil
            }
            if i < 16 { words.0 = words.0 << 4 | UInt64(nibble) } else { words.1 = words.1 << 4 | UInt64(nibble) }
        }
        high = words.0
        low = words.1
    }

    /// The file name this digest spells.
    /// Spelled into one buffer: a write names its file several times (index, quota,
    /// journal), and a `String(radix:)` per half, padded and joined, allocates each step.
    package var fileName: String {
        let suffix = TimelineFile.fileExtension.utf8
        return String(unsafeUninitializedCapacity: 32 + suffix.count) { buffer in
            let digits: StaticString = "0123456789abcdef"
            func spell(_ word: UInt64, at start: Int) {
                for nibble in 0..<16 {
                    buffer[start + nibble] = digits.utf8Start[Int(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0xF]
                }
            }
            spell(high, at: 0)
            spell(low, at: 16)
            _ = UnsafeMutableBufferPointer(rebasing: buffer[32...]).initialize(from: suffix)
            return 32 + suffix.count
        }
    }

    package var description: String { fileName }
}

extension FileDigest: Comparable {
    /// Digest order: the generation ledger's base is sorted by it.
    package static func < (a: FileDigest, b: FileDigest) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }
}
