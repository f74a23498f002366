/// How many times the store has been locked since it was opened: the order of a Lock
/// against the unlocks begun or queued before it.
///
/// A Lock wins over every passcode operation still in flight (DESIGN's lock rule): an unlock
/// carries the epoch in which it arrived, and `TimelineStore.finishUnlock` refuses one
/// that a `lock` has overtaken, however right its passcode (`StoreError.unlockInterrupted`).
/// A passcode change needs no epoch: it is applied under the lock's rules
/// (`TimelineStore.finishSetPasscode`). Only equality means anything; the count itself
/// is shown to no one.
package struct LockEpoch: Sendable, Equatable {
    private var locks: UInt64 = 0

    /// The epoch of a store that has not been locked yet.
    package init() {}

    /// The epoch after one more lock.
    package func next() -> LockEpoch {
        var next = self
        // 2^64 locks do not happen; wrapping would still only need the two to differ.
        next.locks &+= 1
        return next
    }
}
