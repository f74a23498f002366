import Glibc

/// Splits a Varlink byte stream into messages: JSON objects each terminated by a NUL.
///
/// Bytes arrive in whatever pieces the socket delivers; the framer keeps the
/// unfinished tail and yields each complete message without its NUL. Messages can
/// carry a passcode or timeline content, so the bytes of consumed messages are zeroed
/// in the internal buffer, and the whole buffer is zeroed on ``reset()`` and when the
/// framer is released. A message handed out as an array is the caller's to wipe. When the buffer
/// grows, the array's old storage is freed unwiped; the daemon sets glibc's
/// `M_PERTURB` so that freed heap chunks are overwritten (NOTES.md).
public final class MessageFramer {
    /// Why the stream cannot be framed.
    public enum Failure: Error, Sendable, Equatable {
        /// A message grew past `limit` bytes without its terminating NUL.
        case messageTooLarge(limit: Int)
    }

    /// The largest message accepted, in bytes, not counting its NUL.
    public let maxMessageBytes: Int

    /// Received bytes not yet returned; `start` marks the first unconsumed one.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Where the search for the next NUL resumes, so no byte is scanned twice.
    private var scanned = 0

    /// Creates a framer that rejects messages longer than `maxMessageBytes`.
    public init(maxMessageBytes: Int) {
        precondition(maxMessageBytes > 0, "maxMessageBytes must be positive")
        self.maxMessageBytes = maxMessageBytes
    }

    deinit { Self.wipe(&buffer) }

    /// The held bytes, consumed ones included, for tests that check the zeroing.
    var heldBytesForTesting: [UInt8] { buffer }

    /// The number of bytes held for a message not yet complete.
    public var pendingByteCount: Int { buffer.count - start }

    /// Appends received bytes.
    public func append(_ bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes from a raw buffer (the socket read path).
    public func append(_ bytes: UnsafeRawBufferPointer) {
        // Typed, the bytes are copied in one block; as raw bytes they were appended one
        // at a time, which cost a debug build 30 ms per MiB on the event loop.
        buffer.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Returns the next complete message without its NUL, or `nil` when none is complete.
    ///
    /// Throws ``Failure/messageTooLarge(limit:)`` once the unfinished message exceeds the
    /// limit; the stream cannot be resynchronised after that, so the caller closes it.
    /// The array is the caller's to wipe; the event loop uses ``withNextMessage(_:)``,
    /// which copies nothing.
    public func nextMessage() throws(Failure) -> [UInt8]? {
        try withNextMessage { Array($0) }
    }

    /// Runs `body` with the next complete message (without its NUL) in place in the
    /// framer's buffer, then zeroes it there and moves past it; returns `nil` without
    /// calling `body` when no message is complete.
    ///
    /// The view must not escape `body`, and `body` must not use the framer: the bytes
    /// are read where they arrived, so a request costs no allocation of its own.
    /// Throws as ``nextMessage()`` does.
    public func withNextMessage<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(Failure) -> R? {
        var result: R?
        guard try forNextMessage({ result = body($0) }) else { return nil }
        return result
    }

    /// ``withNextMessage(_:)`` without a generic result: returns whether a message was
    /// complete (and `body` called).
    ///
    /// The event loop calls this one for every request: a generic method of another
    /// module runs unspecialised there, looking up its result's type metadata on each call.
    public func forNextMessage(_ body: (UnsafeRawBufferPointer) -> Void) throws(Failure) -> Bool {
        let end = buffer.count
        let from = Swift.max(scanned, start)
        // memchr: a generic firstIndex(of:) runs byte by byte in a debug build (tens of
        // milliseconds per MiB on the event loop, measured with an oversized client).
        let found: Int? = buffer.withUnsafeBufferPointer { storage in
            guard from < end, let base = storage.baseAddress, let hit = memchr(base + from, 0, end - from) else { return nil }
            return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
        }
        guard let index = found else {
            scanned = end
            if end - start > maxMessageBytes { throw .messageTooLarge(limit: maxMessageBytes) }
            compact()
            return false
        }
        guard index - start <= maxMessageBytes else { throw .messageTooLarge(limit: maxMessageBytes) }
        let first = start
        buffer.withUnsafeMutableBufferPointer { storage in
            let base = storage.baseAddress!
            body(UnsafeRawBufferPointer(start: base + first, count: index - first))
            // Wipe the message and its NUL in place before moving past them.
            _ = memset(base + first, 0, index - first + 1)
        }
        start = index + 1
        scanned = start
        if start == buffer.count { compact() }
        return true
    }

    /// Drops every held byte, zeroing it first.
    public func reset() {
        Self.wipe(&buffer)
        buffer.removeAll(keepingCapacity: true)
        start = 0
        scanned = 0
    }

    /// Moves the unconsumed tail to the front once the consumed prefix is worth it.
    ///
    /// The consumed prefix was zeroed when its messages were taken; removing it shifts
    /// the tail in place (same storage), and the vacated end is zeroed as well.
    private func compact() {
        guard start > 0 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else if start >= 4096 || start * 2 >= buffer.count {
            let oldCount = buffer.count
            let tail = oldCount - start
            buffer.withUnsafeMutableBufferPointer { storage in
                let base = storage.baseAddress!
                _ = memmove(base, base + start, tail)
                _ = memset(base + tail, 0, oldCount - tail)
            }
            buffer.removeLast(oldCount - tail)
        } else {
            return
        }
        scanned -= start
        start = 0
    }

    /// Zeroes every byte of the storage, including spare capacity left by earlier messages.
    private static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBufferPointer { storage in
            guard let base = storage.baseAddress else { return }
            _ = memset(base, 0, storage.count)
        }
    }
}
