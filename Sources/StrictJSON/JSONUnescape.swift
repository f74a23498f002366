/// Unescaping of JSON string contents: the pieces the reader uses as it checks a string,
/// and `unescapeChecked` for callers that unescape a string the reader has already
/// checked into memory of their own (a passcode, into secure memory).
public enum JSONUnescape {
    /// The value of a hexadecimal digit, or `nil` for any other byte.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// A Unicode scalar's UTF-8 encoding: up to four bytes, and how many there are.
    @inline(__always)
    static func utf8(_ scalar: UInt32) -> (bytes: (UInt8, UInt8, UInt8, UInt8), count: Int) {
        switch scalar {
        case ..<0x80: ((UInt8(scalar), 0, 0, 0), 1)
        case ..<0x800: ((UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F), 0, 0), 2)
        case ..<0x10000:
            ((UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F), 0), 3)
        default:
            (
                (
                    UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F), UInt8(0x80 | scalar >> 6 & 0x3F),
                    UInt8(0x80 | scalar & 0x3F)
                ), 4
            )
        }
    }

    /// Unescapes the contents (between the quotes) of a string `JSONReader` has checked
    /// — escapes well formed, surrogates paired — handing `sink` each run of plain bytes
    /// and each unescaped character, in order. Unescaping never lengthens a string. The
    /// stack copy of each unescaped character is zeroed after `sink` has taken it.
    public static func unescapeChecked<Failure: Error>(
        _ quoted: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) throws(Failure) -> Void
    ) throws(Failure) {
        var runStart = 0
        var i = 0
        func flush(_ end: Int) throws(Failure) {
            if end > runStart { try sink(UnsafeRawBufferPointer(rebasing: quoted[runStart..<end])) }
        }
        func hex4(_ at: Int) -> UInt32 {
            quoted[at..<(at + 4)].reduce(0) { $0 << 4 | (hexDigit($1) ?? 0) }
        }
        while i < quoted.count {
            guard quoted[i] == UInt8(ascii: "\\") else {
                i += 1
                continue
            }
            try flush(i)
            let escape = quoted[i + 1]
            i += 2
            var scalar: UInt32
            switch escape {
            case UInt8(ascii: "b"): scalar = 0x08
            case UInt8(ascii: "f"): scalar = 0x0C
            case UInt8(ascii: "n"): scalar = 0x0A
            case UInt8(ascii: "r"): scalar = 0x0D
            case UInt8(ascii: "t"): scalar = 0x09
            case UInt8(ascii: "u"):
                scalar = hex4(i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // The reader has checked that a low surrogate follows.
                    let low = hex4(i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
            default: scalar = UInt32(escape)  // \" \\ \/
            }
            var encoded = utf8(scalar)
            defer { encoded.bytes = (0, 0, 0, 0) }
            try withUnsafeBytes(of: &encoded.bytes) { (raw) throws(Failure) in
                try sink(UnsafeRawBufferPointer(rebasing: raw[0..<encoded.count]))
            }
            runStart = i
        }
        try flush(quoted.count)
    }
}
