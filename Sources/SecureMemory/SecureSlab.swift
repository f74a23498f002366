import Synchronization

/// Many `SecureBytes` made together, carved out of a few shared secure regions instead
/// of one `sodium_malloc` region each.
///
/// A new region is a `mmap`, three `mprotect`, an `mlock` that faults in and zeroes
/// its pages, and their reverses when it is freed; the regions `SecureRegionCache`
/// keeps spare that only when few are live at once. A refresh pass after an unlock
/// opens one body per watched widget and keeps every one (the store's cache): with a
/// region each, a thousand bodies are a thousand such allocations, about a third of
/// the pass's CPU in a profile (commit c5f8037 has the measurement). Carved out of
/// 32 KiB chunks, they are one allocation per ten bodies of 3 KiB.
///
/// Each chunk is still a `sodium_malloc` region (guarded at both ends, locked, out of
/// core dumps), served through `SecureRegionCache`. What a buffer gives up is the
/// guard page of its own: an overrun of one reaches the next buffer of the same slab
/// (secrets of the same kind, made by the same caller), not a guard page. A buffer
/// zeroes its bytes when it is released; its chunk, zeroed whole again, goes when the
/// last buffer carved out of it does (so a long-lived buffer keeps its chunk, at most
/// `chunkSize` bytes, mapped). Requests larger than a quarter of a chunk get a region
/// of their own, as without a slab.
///
/// Safe to allocate from on several threads at once.
package final class SecureSlab: Sendable {
    /// The size of each shared region.
    package static let chunkSize = 32 << 10
    /// Buffers are aligned to this many bytes within a chunk.
    static let alignment = 16

    private struct Cursor: ~Copyable {
        var chunk: SecureChunk?
        var used = 0
    }

    private let cursor = Mutex(Cursor())

    package init() {}

    /// `count` zero bytes, carved out of the current chunk (or a new one), or in a region
    /// of their own when large.
    package func zeroed(count: Int) throws(SecureMemoryError) -> SecureBytes {
        // sodium_malloc aborts before sodium_init: a slab may be the process's first secret.
        guard SecureBytes.isSodiumReady else { throw .initializationFailed }
        let size = Swift.max(count, 1)
        guard size <= Self.chunkSize / 4 else { return try SecureBytes.zeroed(count: count) }
        let slot = (size + Self.alignment - 1) / Self.alignment * Self.alignment
        let carved: Result<(SecureChunk, Int), SecureMemoryError> = cursor.withLock { cursor in
            if cursor.chunk == nil || cursor.used + slot > Self.chunkSize {
                guard let region = SecureRegionCache.allocate(size: Self.chunkSize) else { return .failure(.outOfSecureMemory) }
                cursor.chunk = SecureChunk(pointer: region.pointer, isLocked: region.isLocked)
                cursor.used = 0
            }
            defer { cursor.used += slot }
            return .success((cursor.chunk!, cursor.used))
        }
        let (chunk, offset) = try carved.get()
        return SecureBytes(count: count, slot: slot, at: offset, of: chunk)
    }
}

/// One region a `SecureSlab` carves buffers out of, freed (zeroed whole) when the slab
/// and every buffer carved out of it are gone.
final class SecureChunk: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let isLocked: Bool

    init(pointer: UnsafeMutableRawPointer, isLocked: Bool) {
        self.pointer = pointer
        self.isLocked = isLocked
    }

    deinit {
        SecureRegionCache.release(pointer, size: SecureSlab.chunkSize, isLocked: isLocked)
    }
}
