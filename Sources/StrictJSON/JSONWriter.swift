/// Writes compact JSON into memory the caller owns, or only counts its size.
///
/// Written twice by its callers: once with no buffer to measure, then into a buffer of
/// exactly that size (a locked one for decrypted content), so no growable heap copy of
/// the output ever exists; or once into a buffer large enough for the usual output,
/// again only when ``fits`` says it was not. Strings escape only what JSON requires
/// (`"`, `\` and control characters); numbers use Swift's shortest round-tripping form.
public struct JSONWriter {
    private let buffer: UnsafeMutableRawBufferPointer?
    /// The bytes written (or counted) so far.
    public private(set) var count = 0

    /// Whether this writer only counts: callers may then write an object's members in
    /// any order (the size does not depend on it) and skip sorting its keys.
    public var isCounting: Bool { buffer == nil }

    /// A writer that only counts.
    public init() {
        buffer = nil
    }

    /// A writer into `buffer`. What does not fit is counted and not written: ``fits``
    /// then says so, and the caller writes again into a buffer of ``count`` bytes.
    public init(into buffer: UnsafeMutableRawBufferPointer) {
        self.buffer = buffer
    }

    /// Whether everything written so far is in the buffer (always, for a counting writer).
    public var fits: Bool { count <= (buffer?.count ?? Int.max) }

    /// Writes one ASCII byte such as `{` or `,`.
    public mutating func byte(_ value: UInt8) {
        if let buffer, count < buffer.count { buffer[count] = value }
        count += 1
    }

    /// Writes a literal piece of JSON, such as `{"entries":[`, as it is.
    public mutating func raw(_ text: StaticString) {
        raw(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Writes the UTF-8 of `text` as it is (no escaping: for text known to be JSON).
    public mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
    }

    /// Writes bytes as they are. Not generic, so that callers in other modules do not
    /// go through unspecialised collection witnesses for every byte.
    public mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        if let buffer, bytes.count > 0, bytes.count <= buffer.count - count {
            UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + bytes.count)]).copyMemory(from: bytes)
        }
        count += bytes.count
    }

    /// Inserts bytes at `position` (at most ``count``), moving what was written after
    /// it: for a member whose place comes before members written earlier.
    public mutating func insert(_ bytes: UnsafeRawBufferPointer, at position: Int) {
        precondition(position >= 0 && position <= count, "insertion outside the output")
        if let buffer, let base = buffer.baseAddress, let source = bytes.baseAddress, bytes.count > 0,
            count + bytes.count <= buffer.count
        {
            // Overlapping regions are allowed by `copyMemory` (a `memmove`).
            (base + position + bytes.count).copyMemory(from: base + position, byteCount: count - position)
            (base + position).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Writes `text` as a JSON string; runs that need no escape are copied at once.
    public mutating func string(_ text: String) {
        byte(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            let all = UnsafeRawBufferPointer(utf8)
            var runStart = 0
            while true {
                let index = JSONByteScan.firstSpecial(in: all, from: runStart)
                raw(UnsafeRawBufferPointer(rebasing: all[runStart..<index]))
                guard index < all.count else { break }
                let byte = all[index]
                runStart = index + 1
                if byte < 0x20 {
                    let hex: StaticString = "0123456789abcdef"
                    raw("\\u00" as StaticString)
                    self.byte(hex.utf8Start[Int(byte >> 4)])
                    self.byte(hex.utf8Start[Int(byte & 0xF)])
                } else {
                    self.byte(UInt8(ascii: "\\"))
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
            raw("null")
            return
        }
        raw(Self.text(of: value))
    }

    /// The text ``number(_:)`` writes for a finite `value`: integers as integers (`3`,
    /// not `3.0`) below 10¹⁵, `-0` for negative zero, else Swift's shortest form.
    public static func text(of value: Double) -> String {
        precondition(value.isFinite, "a non-finite number has no JSON text")
        if value == 0, value.sign == .minus { return "-0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return value.description
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// Writes `null`.
    public mutating func null() {
        raw("null")
    }
}
