/// Finding the bytes a JSON string cannot hold as they are (`"`, `\` and control
/// characters), eight at a time: the reader, the writer and the validator's size count
/// all walk strings of decrypted content byte by byte otherwise.
public enum JSONByteScan {
    /// The index of the first byte at or after `start` that is `"`, `\` or below 0x20,
    /// or `bytes.count` when there is none.
    @inlinable
    public static func firstSpecial(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return count }
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // A word has a zero byte iff (v - 0x01…) & ~v & 0x80… is not zero (exact as a
        // test of existence), so a word with none of the three kinds is skipped whole;
        // the byte loop then finds the exact index.
        while count - index >= 8 {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            index += 8
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte == 0x22 || byte == 0x5C || byte < 0x20 { return index }
            index += 1
        }
        return count
    }

    /// The index of the first byte at or after `start` that is not ASCII, or `bytes.count`.
    @inlinable
    public static func firstNonASCII(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return count }
        var index = start
        while count - index >= 8,
            base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
            index += 8
        }
        while index < count, base.load(fromByteOffset: index, as: UInt8.self) < 0x80 { index += 1 }
        return index
    }
}
