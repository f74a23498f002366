import CSodium
import Glibc
import Synchronization

/// Keeps a few released `sodium_malloc` regions, zeroed, for the next `SecureBytes` of
/// the same size class, instead of unmapping them and mapping new ones.
///
/// A `sodium_malloc` and its `sodium_free` are about ten system calls (`mmap`, three
/// `mprotect`, `mlock`, `madvise` and their reverses), and in a process with more than
/// one thread each `mprotect` that takes a permission away and each `munmap` flushes
/// the other cores' TLBs with an inter-processor interrupt. A durable write allocates
/// four short-lived secrets (the body, the ephemeral X25519 secret, the shared secret,
/// the key-encryption key): `perf` showed these calls at ≈ 15–20% of the daemon's CPU
/// under writes (docs/BENCHMARKS.md).
///
/// What is kept is still a `sodium_malloc` region: guarded, locked, out of core dumps.
/// A region is zeroed (its whole capacity) before it is kept, so a kept region holds
/// nothing; it is handed out again only for a request of its size class. Sizes are
/// rounded up to a power of two (at least 32 bytes), so a buffer may sit a few bytes
/// short of its region's end: an overrun smaller than that slack reaches the slack, not
/// the guard page (as with any `SecureBytes` that has spare capacity). Regions above
/// `largestKept` bytes are never kept, and at most `maximumKeptBytes` are kept in all.
/// What `sodium_free` checks (its canary) is checked when a region is finally freed.
enum SecureRegionCache {
    /// The largest region kept (a 3 KiB timeline's body fits with room to spare).
    static let largestKept = 64 << 10
    /// How many bytes all kept regions may hold together.
    static let maximumKeptBytes = 1 << 20
    /// How many regions of one size class are kept: each is at least three mapped pages
    /// (two of them guards) and one `sodium_malloc` of the process's limited number.
    static let maximumKeptPerClass = 32

    private struct Kept: ~Copyable {
        /// Kept regions by size class (log2 of the size), each a stack of addresses.
        var regions: [[UInt]] = Array(repeating: [], count: SecureRegionCache.largestKept.trailingZeroBitCount - 4)
        var bytes = 0
    }

    private static let kept = Mutex(Kept())

    /// The size of the region that serves a request for `count` bytes.
    static func regionSize(for count: Int) -> Int {
        guard count <= largestKept else { return count }
        return Swift.max(32, 1 << (Int.bitWidth - (Swift.max(count, 1) - 1).leadingZeroBitCount))
    }

    private static func sizeClass(_ size: Int) -> Int? {
        guard size <= largestKept, size.nonzeroBitCount == 1 else { return nil }
        return size.trailingZeroBitCount - 5
    }

    /// A zeroed region of `regionSize(for:)` bytes, kept or new, and whether it is
    /// locked in RAM; `nil` if secure memory is exhausted.
    ///
    /// `sodium_malloc` ignores the result of its own `mlock`, so a new region is locked
    /// again here and the answer kept: pages it did lock count once against
    /// `RLIMIT_MEMLOCK` (the kernel does not count a locked page twice), pages it could
    /// not lock fail again. One system call per new region (≈ 1 µs beside the
    /// ≈ 29 µs of `sodium_malloc`); a kept region, always a locked one, costs none.
    static func allocate(size: Int) -> (pointer: UnsafeMutableRawPointer, isLocked: Bool)? {
        if let index = sizeClass(size) {
            let reused = kept.withLock { kept -> UInt? in
                guard let address = kept.regions[index].popLast() else { return nil }
                kept.bytes -= size
                return address
            }
            if let reused, let pointer = UnsafeMutableRawPointer(bitPattern: reused) { return (pointer, true) }
        }
        guard let pointer = sodium_malloc(size) else { return nil }
        // sodium_malloc fills new memory with a marker byte, not zero.
        sodium_memzero(pointer, size)
        let isLocked = mlock(pointer, size) == 0
        if !isLocked { LockedMemory.recordFailure() }
        return (pointer, isLocked)
    }

    /// Zeroes a region and keeps it, or frees it (`sodium_free` zeroes it too). A region
    /// that is not locked is never kept: its size class's next request maps (and tries
    /// to lock) a new one, which succeeds once the limit leaves room again.
    static func release(_ pointer: UnsafeMutableRawPointer, size: Int, isLocked: Bool) {
        if isLocked, let index = sizeClass(size) {
            sodium_memzero(pointer, size)
            let address = UInt(bitPattern: pointer)
            let isKept = kept.withLock { kept -> Bool in
                guard kept.bytes + size <= maximumKeptBytes, kept.regions[index].count < maximumKeptPerClass else {
                    return false
                }
                kept.regions[index].append(address)
                kept.bytes += size
                return true
            }
            if isKept { return }
        }
        sodium_free(pointer)
    }
}
