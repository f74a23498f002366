import Synchronization

/// Whether the secure memory of this process is locked in RAM, as `SecureBytes` promises.
///
/// `sodium_malloc` locks its pages with `mlock` but carries on silently when that fails
/// (`RLIMIT_MEMLOCK` reached, no `CAP_IPC_LOCK`): the memory is then still guarded,
/// excluded from core dumps and zeroed on release, but it may be written to swap.
/// `SecureRegionCache` checks each new region and counts the ones it could not lock
/// here, so the daemon can say so (a warning, not a silent risk) and keep no decrypted timeline in them.
///
/// Process-wide by nature (the limit is the process's), and safe from any thread.
package enum LockedMemory {
    private static let unlockedRegions = Atomic<Int>(0)

    /// Whether any secure region could not be locked since the process started.
    package static var hasFailed: Bool { unlockedRegions.load(ordering: .relaxed) > 0 }

    /// How many secure regions could not be locked since the process started.
    package static var failureCount: Int { unlockedRegions.load(ordering: .relaxed) }

    /// Counts one region that could not be locked.
    static func recordFailure() {
        unlockedRegions.add(1, ordering: .relaxed)
    }
}
