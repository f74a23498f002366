import Varlink

/// A call whose parameters are passcodes, assembled in zeroed memory.
///
/// The passcodes are escaped straight from their buffers into a ``ZeroingBuffer``;
/// a `nil` one leaves its parameter out. No `String` or array ever holds them.
package enum SecretCall {
    /// The NUL-terminated call of `method` with these secret string parameters.
    package static func encode(_ method: String, _ secrets: [(name: String, value: ZeroingBuffer?)]) -> ZeroingBuffer {
        let head = VarlinkCallMessage.head(method: method)
        let present = secrets.compactMap { secret in secret.value.map { (name: secret.name, value: $0) } }
        // Worst case a secret byte becomes `\u00XX`: six bytes; each member `"name":"…",`.
        let capacity = head.count + 2 + VarlinkCallMessage.tail.count
            + present.reduce(0) { $0 + $1.name.utf8.count + 6 + $1.value.count * 6 }
        let buffer = ZeroingBuffer(capacity: capacity)
        func put(_ fitted: Bool) { precondition(fitted, "SecretCall capacity computed too small") }
        put(buffer.append(contentsOf: head))
        put(buffer.append(UInt8(ascii: "{")))
        for (index, secret) in present.enumerated() {
            if index > 0 { put(buffer.append(UInt8(ascii: ","))) }
            // Parameter names are the interface's own identifiers: nothing to escape.
            put(buffer.append(contentsOf: Array("\"\(secret.name)\":\"".utf8)))
            put(secret.value.withUnsafeBytes { buffer.appendJSONStringContents($0) })
            put(buffer.append(UInt8(ascii: "\"")))
        }
        put(buffer.append(UInt8(ascii: "}")))
        put(buffer.append(contentsOf: VarlinkCallMessage.tail))
        return buffer
    }
}
