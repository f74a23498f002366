import CSodium

/// A buffer for secrets: keys, passcodes and decrypted content.
///
/// Backed by `sodium_malloc`: the pages are guarded, locked in RAM (`mlock`, when the
/// process's `RLIMIT_MEMLOCK` allows: see `isLocked` and `LockedMemory`),
/// excluded from core dumps, and zeroed when the last reference goes away (then freed,
/// or kept zeroed for the next buffer of its size: `SecureRegionCache`). The bytes are reachable only through `withUnsafeBytes` and
/// `withUnsafeMutableBytes`; there is deliberately no conversion to `[UInt8]`,
/// `Data` or `String`, no `description` and no `Codable`, so a secret cannot leak
/// into an ordinary heap copy, a log line or a file by accident.
///
/// `sodium_malloc` fails after about 16,000 live allocations; every allocation is
/// checked and reported as `SecureMemoryError.outOfSecureMemory`.
///
/// Thread safety: the buffer may be handed to another thread (it is
/// `@unchecked Sendable` for that), but must not be mutated by two threads at once.
package final class SecureBytes: @unchecked Sendable {
    /// Internal only so that ``withUnsafeBytes(_:)`` can be inlined: unspecialised across
    /// modules, that generic call was ≈ 1.4% of the daemon's CPU per cached read.
    @usableFromInline private(set) var pointer: UnsafeMutableRawPointer
    private var capacity: Int
    /// The number of bytes in use.
    package private(set) var count: Int
    /// Whether the bytes are locked in RAM (`mlock`). `false` when the process's
    /// `RLIMIT_MEMLOCK` was reached (`LockedMemory`): still guarded, out of core dumps
    /// and zeroed on release, but the kernel may swap it out, so what is kept long
    /// (a cache) should not be kept in it.
    package private(set) var isLocked: Bool
    /// The `SecureSlab` chunk the bytes are carved out of, kept alive by them; `nil` for
    /// a region of their own.
    private var chunk: SecureChunk?

    /// Whether `sodium_init` succeeded. Swift runs a static initialiser once even when
    /// several threads race to it, which is the guarantee `sodium_init` asks for; the
    /// crypto layer's own call to it finds the library ready (it may be called again).
    static let isSodiumReady: Bool = sodium_init() >= 0

    /// Allocates `capacity` bytes of secure memory holding `count` zero bytes.
    private init(count: Int, capacity: Int) throws(SecureMemoryError) {
        guard Self.isSodiumReady else { throw .initializationFailed }
        let capacity = SecureRegionCache.regionSize(for: Swift.max(capacity, count, 1))
        guard let region = SecureRegionCache.allocate(size: capacity) else { throw .outOfSecureMemory }
        self.pointer = region.pointer
        self.isLocked = region.isLocked
        self.capacity = capacity
        self.count = count
    }

    /// `count` zero bytes in `slot` bytes at `offset` of a slab's chunk (zero already: a
    /// chunk is zeroed when it is made, and each slot of it is handed out once).
    init(count: Int, slot: Int, at offset: Int, of chunk: SecureChunk) {
        pointer = chunk.pointer + offset
        isLocked = chunk.isLocked
        capacity = slot
        self.count = count
        self.chunk = chunk
    }

    deinit {
        // Zeroed whole either way: a slab's slot here (its chunk goes with its last
        // buffer); a region of its own kept for reuse, or by sodium_free before unmapping.
        if chunk != nil {
            sodium_memzero(pointer, capacity)
        } else {
            SecureRegionCache.release(pointer, size: capacity, isLocked: isLocked)
        }
    }

    /// `count` zero bytes, ready to be written through `withUnsafeMutableBytes`.
    package static func zeroed(count: Int) throws(SecureMemoryError) -> SecureBytes {
        try SecureBytes(count: count, capacity: count)
    }

    /// An empty buffer with room for `capacity` bytes, for building a plaintext with `append`.
    package static func empty(reservingCapacity capacity: Int) throws(SecureMemoryError) -> SecureBytes {
        try SecureBytes(count: 0, capacity: capacity)
    }

    /// `count` bytes from the CSPRNG (`randombytes_buf`): a fresh key.
    package static func random(count: Int) throws(SecureMemoryError) -> SecureBytes {
        let bytes = try SecureBytes(count: count, capacity: count)
        bytes.refillRandom()
        return bytes
    }

    /// A secure copy of `source`. The caller still owns `source` and must zero it.
    package convenience init(copying source: UnsafeRawBufferPointer) throws(SecureMemoryError) {
        try self.init(count: source.count, capacity: source.count)
        if let base = source.baseAddress, source.count > 0 {
            pointer.copyMemory(from: base, byteCount: source.count)
        }
    }

    /// Reads the bytes. The pointer must not escape `body`.
    @inlinable
    package func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Reads and writes the bytes in place. The pointer must not escape `body`.
    /// Inlinable like ``withUnsafeBytes(_:)``, so that the crypto layer's calls (each
    /// decryption writes its plaintext through it) stay specialised across the module
    /// boundary.
    @inlinable
    package func withUnsafeMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    /// Appends bytes, growing into a new secure allocation when needed (the old one is zeroed and freed).
    package func append(_ bytes: UnsafeRawBufferPointer) throws(SecureMemoryError) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        try reserveCapacity(count + bytes.count)
        (pointer + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends another secure buffer's bytes.
    package func append(_ other: SecureBytes) throws(SecureMemoryError) {
        try other.withUnsafeBytes { (buffer) throws(SecureMemoryError) in try append(buffer) }
    }

    /// Makes room for at least `minimumCapacity` bytes without a further allocation.
    package func reserveCapacity(_ minimumCapacity: Int) throws(SecureMemoryError) {
        guard minimumCapacity > capacity else { return }
        let newCapacity = SecureRegionCache.regionSize(for: Swift.max(minimumCapacity, capacity * 2))
        guard let region = SecureRegionCache.allocate(size: newCapacity) else { throw .outOfSecureMemory }
        region.pointer.copyMemory(from: pointer, byteCount: count)
        if chunk != nil {
            sodium_memzero(pointer, capacity)
            chunk = nil
        } else {
            SecureRegionCache.release(pointer, size: capacity, isLocked: isLocked)
        }
        pointer = region.pointer
        isLocked = region.isLocked
        capacity = newCapacity
    }

    /// Zeroes every byte (the whole capacity) and sets `count` to 0, keeping the allocation.
    package func removeAll() {
        sodium_memzero(pointer, capacity)
        count = 0
    }

    /// Overwrites the bytes in use with fresh CSPRNG output, keeping the allocation: a
    /// reusable key buffer refilled for each use, instead of a `sodium_malloc` (about
    /// ten system calls with its `sodium_free`) per key.
    package func refillRandom() {
        // The allocation ran sodium_init, which randombytes_buf needs.
        if count > 0 { randombytes_buf(pointer, count) }
    }

    /// Zeroes the bytes in use, keeping `count` and the allocation.
    package func zeroInPlace() {
        sodium_memzero(pointer, count)
    }

    /// A second, independent secure buffer with the same bytes.
    package func copy() throws(SecureMemoryError) -> SecureBytes {
        try withUnsafeBytes { (buffer) throws(SecureMemoryError) in try SecureBytes(copying: buffer) }
    }

    /// Whether both buffers hold the same bytes, compared in constant time (`sodium_memcmp`).
    /// Buffers of different lengths compare unequal (their lengths are not secret).
    package func constantTimeEquals(_ other: SecureBytes) -> Bool {
        count == other.count && sodium_memcmp(pointer, other.pointer, count) == 0
    }

    /// Whether the buffer holds no bytes.
    package var isEmpty: Bool { count == 0 }
}
