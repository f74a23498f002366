import Glibc
import StrictJSON

/// Splits a Varlink byte stream into messages: JSON objects each terminated by a NUL.
///
/// Bytes arrive in whatever pieces the socket delivers; the framer keeps the
/// unfinished tail and yields each complete message without its NUL. Messages can
/// carry a passcode or timeline content, so the bytes of consumed messages are zeroed
/// in the internal buffer, and the whole buffer is zeroed on ``reset()``, when it grows
/// (the old storage, before it is freed) and when the framer is released. A message
/// handed out as an array is the caller's to wipe.
///
/// The buffer is raw memory the framer owns rather than an `[UInt8]`: an array accessed
/// around the caller's closure costs a dynamic exclusivity check on every message, which
/// the event loop pays once per request.
public final class MessageFramer {
    /// Why the stream cannot be framed.
    public enum Failure: Error, Sendable, Equatable {
        /// A message grew past `limit` bytes without its terminating NUL.
        case messageTooLarge(limit: Int)
    }

    /// The largest message accepted, in bytes, not counting its NUL.
    public let maxMessageBytes: Int

    /// Received bytes not yet returned, in `storage[0..<count]` (`capacity` allocated);
    /// `start` marks the first unconsumed one.
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0
    private var count = 0
    private var start = 0
    /// Where the search for the next NUL resumes, so no byte is scanned twice.
    private var scanned = 0

    /// Creates a framer that rejects messages longer than `maxMessageBytes`.
    public init(maxMessageBytes: Int) {
        precondition(maxMessageBytes > 0, "maxMessageBytes must be positive")
        self.maxMessageBytes = maxMessageBytes
    }

    deinit { release() }

    /// The held bytes, consumed ones included, for tests that check the zeroing.
    var heldBytesForTesting: [UInt8] {
        guard let storage else { return [] }
        return Array(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// The number of bytes held for a message not yet complete.
    public var pendingByteCount: Int { count - start }

    /// Appends received bytes.
    public func append(_ bytes: some Collection<UInt8>) {
        // A contiguous copy, zeroed after: the bytes may hold a passcode.
        var array = Array(bytes)
        array.withUnsafeBytes { append($0) }
        SecretWipe.zero(&array)
    }

    /// Appends received bytes from a raw buffer (the socket read path).
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(count + bytes.count)
        (storage! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// The bytes of storage the framer will hold allocated once `byteCount` more are
    /// appended: what a server bounds across its connections (the memory, not only the
    /// bytes received, since the storage grows by doubling).
    public func capacity(appending byteCount: Int) -> Int {
        Self.grownCapacity(from: capacity, toHold: count + byteCount)
    }

    /// Storage kept for the next messages once emptied, while it is this small; a larger
    /// one (left by a big message) is freed, so an idle connection holds little.
    static let keptCapacity = 64 << 10

    private static func grownCapacity(from capacity: Int, toHold needed: Int) -> Int {
        guard needed > capacity else { return capacity }
        var newCapacity = Swift.max(capacity * 2, 4096)
        while newCapacity < needed { newCapacity *= 2 }
        return newCapacity
    }

    /// Grows the storage to hold at least `needed` bytes, zeroing and freeing the old one.
    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        let newCapacity = Self.grownCapacity(from: capacity, toHold: needed)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.initializeMemory(as: UInt8.self, repeating: 0, count: newCapacity)
        if let storage {
            grown.copyMemory(from: storage, byteCount: count)
            SecretWipe.zero(storage, count: capacity)
            storage.deallocate()
        }
        storage = grown
        capacity = newCapacity
    }

    /// Zeroes and frees the storage.
    private func release() {
        guard let storage else { return }
        SecretWipe.zero(storage, count: capacity)
        storage.deallocate()
        self.storage = nil
        capacity = 0
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
        let end = count
        let from = Swift.max(scanned, start)
        // memchr: a generic firstIndex(of:) runs byte by byte in a debug build (tens of
        // milliseconds per MiB on the event loop, measured with an oversized client).
        guard let base = storage, from < end, let hit = memchr(base + from, 0, end - from) else {
            scanned = end
            if end - start > maxMessageBytes { throw .messageTooLarge(limit: maxMessageBytes) }
            compact()
            return false
        }
        let index = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
        guard index - start <= maxMessageBytes else { throw .messageTooLarge(limit: maxMessageBytes) }
        let first = start
        body(UnsafeRawBufferPointer(start: base + first, count: index - first))
        // Wipe the message and its NUL in place before moving past them.
        SecretWipe.zero(base + first, count: index - first + 1)
        start = index + 1
        scanned = start
        if start == count { compact() }
        return true
    }

    /// Drops every held byte, zeroing it first; the storage is kept for the next messages.
    public func reset() {
        SecretWipe.zero(storage, count: capacity)
        count = 0
        start = 0
        scanned = 0
    }

    /// Moves the unconsumed tail to the front once the consumed prefix is worth it.
    ///
    /// The consumed prefix was zeroed when its messages were taken; the vacated end is
    /// zeroed after the tail moves.
    private func compact() {
        guard start > 0, let base = storage else { return }
        if start == count {
            count = 0
            if capacity > Self.keptCapacity { release() }
        } else if start >= 4096 || start * 2 >= count {
            let tail = count - start
            _ = memmove(base, base + start, tail)
            SecretWipe.zero(base + tail, count: count - tail)
            count = tail
        } else {
            return
        }
        scanned -= start
        start = 0
    }
}
