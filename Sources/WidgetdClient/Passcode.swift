/// A passcode held in locked memory that is zeroed when the last reference goes away.
///
/// It never becomes a `String`, `Data` or array inside the library, has no
/// `description`, and is written straight into a zeroed request buffer. The bytes are
/// immutable after creation, which is why it can be shared across tasks.
public final class Passcode: @unchecked Sendable {
    /// The bytes, read by ``SecretCall`` only.
    let buffer: ZeroingBuffer

    /// Copies the UTF-8 bytes of `text`. The caller's `String` is its own to drop; prefer
    /// ``init(bytes:)`` from a buffer the caller wipes when the passcode is read from a
    /// terminal or a file.
    public convenience init(_ text: String) {
        self.init(bytes: text.utf8)
    }

    /// Copies `bytes`, e.g. from a buffer the caller zeroes afterwards.
    public init(bytes: some Collection<UInt8>) {
        buffer = ZeroingBuffer(capacity: bytes.count)
        buffer.append(contentsOf: bytes)
    }

    /// The number of bytes.
    public var count: Int { buffer.count }
}
