import Varlink

/// A call whose parameters are passcodes, assembled in zeroed memory.
///
/// The passcodes are escaped straight from their buffers into a ``ZeroingBuffer``;
/// a `nil` one leaves its parameter out. No `String` or array ever holds them.
enum SecretCall {
    /// The NUL-terminated call of `method` with these secret string parameters.
    static func encode(_ method: String, _ secrets: [(name: String, value: Passcode?)]) -> ZeroingBuffer {
        let head = VarlinkCallMessage.head(method: method)
        let present = secrets.compactMap { secret in secret.value.map { (name: secret.name, value: $0) } }
        // Worst case a secret byte becomes `\u00XX`: six bytes; each member `"name":"…",`.
        let capacity = head.count + 2 + VarlinkCallMessage.tail.count
            + present.reduce(0) { $0 + $1.name.utf8.count + 6 + $1.value.count * 6 }
        let buffer = ZeroingBuffer(capacity: capacity)
        buffer.append(contentsOf: head)
        buffer.append(contentsOf: CollectionOfOne(UInt8(ascii: "{")))
        for (index, secret) in present.enumerated() {
            if index > 0 { buffer.append(contentsOf: CollectionOfOne(UInt8(ascii: ","))) }
            // Parameter names are the interface's own identifiers: nothing to escape.
            buffer.append(contentsOf: Array("\"\(secret.name)\":\"".utf8))
            secret.value.withUnsafeBytes { buffer.appendJSONStringContents($0) }
            buffer.append(contentsOf: CollectionOfOne(UInt8(ascii: "\"")))
        }
        buffer.append(contentsOf: CollectionOfOne(UInt8(ascii: "}")))
        buffer.append(contentsOf: VarlinkCallMessage.tail)
        return buffer
    }
}
