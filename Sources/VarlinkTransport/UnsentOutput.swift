import SecureMemory

/// A connection's replies that its socket has not taken yet.
///
/// Replies can hold decrypted content, and a client that does not read can keep them
/// waiting as long as it stays connected: so they wait in secure memory (locked, out of
/// core dumps, zeroed when released; see `SecureBytes`), never in the ordinary heap,
/// and each reply holding protected content is marked with its `Tag` until its last
/// byte is sent, so that the connection can drop it when its class is purged.
///
/// The tag is opaque here: the transport keeps it beside the bytes and hands it back
/// to a predicate; what it means (a connection's tags are ``OutputTag``s: for widgetd a
/// class, an open timeline) and which tags a purge makes unreadable are the service's
/// to decide.
/// Lives on the event loop's thread.
package struct UnsentOutput<Tag> {
    /// Appended replies; `storage[start...]` is still unsent.
    private var storage: SecureBytes?
    private var start = 0
    /// Where each protected reply ends in `storage`, oldest first; a mark goes once its
    /// reply is sent.
    private var marks: [(end: Int, protection: Tag)] = []

    /// Storage is kept for the next replies while it is this small once emptied (zeroed);
    /// a larger one is released, so a connection that once sent a big reply does not
    /// hold its size in locked memory.
    package static var keptBytes: Int { 64 << 10 }
    /// Sent bytes at the front are dropped (the rest copied to new storage) once they
    /// are this many, so a long backlog does not keep everything it sent.
    package static var compactionBytes: Int { 64 << 10 }

    /// Nothing waits.
    package init() {}

    /// The number of unsent bytes.
    package var count: Int { (storage?.count ?? 0) - start }

    /// Whether everything was sent.
    package var isEmpty: Bool { count == 0 }

    /// Appends a copy of `bytes`, marked with `protection` when it holds protected content.
    package mutating func append(_ bytes: UnsafeRawBufferPointer, protection: Tag?) throws(SecureMemoryError) {
        guard bytes.count > 0 else { return }
        let storage: SecureBytes
        if let existing = self.storage {
            storage = existing
        } else {
            storage = try SecureBytes.empty(reservingCapacity: bytes.count)
            self.storage = storage
        }
        try storage.append(bytes)
        if let protection { marks.append((storage.count, protection)) }
    }

    /// Runs `body` with the unsent bytes in place; the view must not escape `body`.
    package func withUnsentBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        guard let storage else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try storage.withUnsafeBytes { (bytes) throws(Failure) in
            try body(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// The socket took the first `sent` unsent bytes.
    package mutating func removeFirst(_ sent: Int) {
        guard let storage, sent > 0 else { return }
        precondition(sent <= count, "more bytes sent than were waiting")
        start += sent
        let done = marks.prefix { $0.end <= start }.count
        if done > 0 { marks.removeFirst(done) }
        if start == storage.count {
            if storage.count > Self.keptBytes { self.storage = nil } else { storage.removeAll() }
            start = 0
        } else if start >= Self.compactionBytes {
            // A copy of the rest; the old storage (sent bytes and all) is zeroed as it is released.
            guard let rest = try? withUnsentBytes({ (bytes) throws(SecureMemoryError) in try SecureBytes(copying: bytes) })
            else { return }
            for index in marks.indices { marks[index].end -= start }
            self.storage = rest
            start = 0
        }
    }

    /// The protection of the oldest unsent protected reply that `matches`, if any.
    package func firstProtection(where matches: (Tag) -> Bool) -> Tag? {
        marks.first { matches($0.protection) }?.protection
    }

    /// Drops every unsent byte; the storage is zeroed as it is released.
    package mutating func removeAll() {
        storage = nil
        start = 0
        marks = []
    }
}
