import SecureMemory
import StrictJSON

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
    init(_ bytes: UnsafeRawBufferPointer?, members: [String]) throws(ServiceError) {
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
    static func unescaped(_ quoted: UnsafeRawBufferPointer) throws(SecureMemoryError) -> SecureBytes {
        let result = try SecureBytes.empty(reservingCapacity: max(quoted.count, 1))
        try JSONUnescape.unescapeChecked(quoted) { (piece) throws(SecureMemoryError) in try result.append(piece) }
        return result
    }
}
