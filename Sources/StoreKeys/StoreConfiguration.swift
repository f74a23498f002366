import WidgetCrypto

/// The store's tunables (`[Daemon]` section). Changing them never touches released keys.
package struct StoreConfiguration: Sendable, Equatable {
    /// Seconds after a lock before the class-A key and class-A plaintext are purged (`ClassAGraceSec`).
    package var classAGrace: Double = 10
    /// Crypto-erase after this many failed unlock attempts; `nil` (the default) never erases.
    package var wipeAfterFailedAttempts: Int? = nil
    /// Argon2id cost for a passcode set from now on (`PasscodeKDF`); the keybag keeps the cost it was made with.
    package var kdfCost: KDFCost = .interactive
    /// The largest timeline body accepted, in plaintext bytes (`MaxTimelineBytes`).
    package var maxTimelineBytes: Int = 1 << 20
    /// The largest placeholder accepted, in bytes.
    package var maxPlaceholderBytes: Int = 64 << 10
    /// How many decrypted timelines the cache keeps before evicting the least recently used.
    package var maxCachedTimelines: Int = 1024
    /// Whether decrypted timelines are cached only in memory that is locked in RAM
    /// (`RequireLockedMemory`, default yes). Where locking failed (`LockedMemory`) they
    /// are then decrypted per request and nothing of them is kept beyond it; `false`
    /// caches them anyway (degraded: the kernel may swap them out).
    package var requireLockedMemory = true
    /// Seconds locked after which class C is purged too and the state is
    /// `beforeFirstUnlock` again (`[Session] RequirePasscodeAfterSec`, DESIGN §8; iOS's
    /// inactivity restart); `nil` never.
    package var requirePasscodeAfter: Double? = 72 * 3600

    /// The defaults.
    package init() {}
}
