import StrictJSON
import WidgetCrypto

/// The passcodes of an `Unlock` (`passcode`) or `SetPasscode` (`current`, `new`) call,
/// read from the message bytes straight into secure memory.
///
/// Decoding them as Swift `String`s would leave a copy of each passcode in an ordinary
/// heap chunk; here the only copies are the received message (zeroed with the call)
/// and the `SecureBytes` returned. Unknown members are ignored, as Varlink allows; a
/// member given twice, or of the wrong type, is `InvalidParameter` naming it. `null`
/// counts as absent.
struct PasscodeParameters {
    /// The passcodes found, by member name.
    private(set) var values: [String: SecureBytes] = [:]

    /// Reads `members` from a parameters object (`nil` bytes: no parameters).
    init(_ bytes: UnsafeRawBufferPointer?, members: [String]) throws {
        guard let bytes else { return }
        var reader = JSONReader(bytes)
        var failed: String?
        var outOfSecureMemory = false
        var seen: Set<String> = []
        var found: [String: SecureBytes] = [:]
        do {
            try reader.readObject { (reader, key) throws(JSONReadError) in
                guard members.contains(key) else { return try reader.skipValue() }
                let kind = try reader.peek()
                guard seen.insert(key).inserted, kind == .string || kind == .null else {
                    if failed == nil { failed = key }
                    return try reader.skipValue()
                }
                guard kind == .string else { return try reader.skipValue() }  // null: absent
                let start = reader.offset
                try reader.skipValue()  // checks the string: UTF-8, escapes, paired surrogates
                let quoted = UnsafeRawBufferPointer(rebasing: bytes[(start + 1)..<(reader.offset - 1)])
                do { found[key] = try Self.unescaped(quoted) } catch { outOfSecureMemory = true }
            }
        } catch {
            throw ServiceError.invalidParameter(failed ?? "")
        }
        if let failed { throw ServiceError.invalidParameter(failed) }
        if outOfSecureMemory { throw ServiceError.storageFailure("out of secure memory") }
        values = found
    }

    /// The passcode in member `name`, or nil when absent or null.
    func value(_ name: String) -> SecureBytes? { values[name] }

    /// A checked JSON string's contents (between its quotes), unescaped into secure
    /// memory. Unescaping never lengthens a string, so one reservation suffices.
    static func unescaped(_ quoted: UnsafeRawBufferPointer) throws(CryptoError) -> SecureBytes {
        let result = try SecureBytes.empty(reservingCapacity: max(quoted.count, 1))
        var runStart = 0
        var i = 0
        func flush(_ end: Int) throws(CryptoError) {
            if end > runStart { try result.append(UnsafeRawBufferPointer(rebasing: quoted[runStart..<end])) }
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
                scalar = hex4(quoted, i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // The reader has checked that a low surrogate follows.
                    let low = hex4(quoted, i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
            default: scalar = UInt32(escape)  // \" \\ \/
            }
            var utf8: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
            let length = encodeUTF8(scalar, into: &utf8)
            try withUnsafeBytes(of: &utf8) { raw throws(CryptoError) in
                try result.append(UnsafeRawBufferPointer(rebasing: raw[0..<length]))
            }
            utf8 = (0, 0, 0, 0)
            runStart = i
        }
        try flush(quoted.count)
        return result
    }

    private static func hex4(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for byte in bytes[at..<(at + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: digit = byte - UInt8(ascii: "A") + 10
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private static func encodeUTF8(_ scalar: UInt32, into out: inout (UInt8, UInt8, UInt8, UInt8)) -> Int {
        switch scalar {
        case 0..<0x80:
            out.0 = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out = (UInt8(0xC0 | scalar >> 6), UInt8(0x80 | scalar & 0x3F), 0, 0)
            return 2
        case 0x800..<0x10000:
            out = (UInt8(0xE0 | scalar >> 12), UInt8(0x80 | scalar >> 6 & 0x3F), UInt8(0x80 | scalar & 0x3F), 0)
            return 3
        default:
            out = (
                UInt8(0xF0 | scalar >> 18), UInt8(0x80 | scalar >> 12 & 0x3F), UInt8(0x80 | scalar >> 6 & 0x3F),
                UInt8(0x80 | scalar & 0x3F)
            )
            return 4
        }
    }
}
