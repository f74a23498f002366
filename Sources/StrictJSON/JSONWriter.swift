/// Writes compact JSON into memory the caller owns, or only counts its size.
///
/// Written twice by its callers: once with no buffer to measure, then into a buffer of
/// exactly that size (a locked one for decrypted content), so no growable heap copy of
/// the output ever exists. Strings escape only what JSON requires (`"`, `\` and
/// control characters); numbers use Swift's shortest round-tripping form.
public struct JSONWriter {
    private let buffer: UnsafeMutableRawBufferPointer?
    /// The bytes written (or counted) so far.
    public private(set) var count = 0

    /// A writer that only counts.
    public init() {
        buffer = nil
    }

    /// A writer into `buffer`, which must be at least as large as the count of a
    /// measuring pass over the same values.
    public init(into buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// Writes one ASCII byte such as `{` or `,`.
    public mutating func byte(_ value: UInt8) {
        if let buffer { buffer[count] = value }
        count += 1
    }

    /// Writes bytes as they are.
    public mutating func raw(_ bytes: some Collection<UInt8>) {
        if let buffer {
            for byte in bytes {
                buffer[count] = byte
                count += 1
            }
        } else {
            count += bytes.count
        }
    }

    /// Writes `text` as a JSON string.
    public mutating func string(_ text: String) {
        byte(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    self.byte(UInt8(ascii: "\\"))
                    self.byte(byte)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    raw([UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default:
                    self.byte(byte)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    /// Writes a finite number in the shortest form that reads back to the same `Double`.
    /// Non-finite numbers have no JSON form; they are written as `null`, and callers
    /// validate before writing so that this never happens.
    public mutating func number(_ value: Double) {
        guard value.isFinite else {
            raw("null".utf8)
            return
        }
        if value == 0, value.sign == .minus {
            raw("-0".utf8)
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            // Integers as integers: `3`, not `3.0`.
            raw(String(Int(value)).utf8)
            return
        }
        raw(value.description.utf8)
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        raw((value ? "true" : "false").utf8)
    }

    /// Writes `null`.
    public mutating func null() {
        raw("null".utf8)
    }
}
