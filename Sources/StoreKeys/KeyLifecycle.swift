import FoundationEssentials
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX

/// The device state and which class secret keys are held: the rules of DESIGN §3.
///
/// - Start with a passcode: `beforeFirstUnlock`, only class D held.
/// - Start without a passcode: the first unlock happens by itself; all keys held, never purged.
/// - Unlock: A, B and C released; a pending class-A purge is cancelled.
/// - Lock (passcode set): B dropped at once; A dropped `grace` seconds later
///   (at once if the grace is 0); C and D stay until the process ends.
/// - Lock (no passcode): only the state changes.
/// - A passcode set while locked: the lock rules apply as if it had been set just before
///   the lock: B dropped at once, A `grace` seconds after the lock (at once if that has
///   passed). So a `SetPasscode` that a Lock overtook ends as the Lock prescribes.
///
/// Keys are held per class and key generation (`Keybag`): an unlock releases every
/// generation of A, B and C, a purge drops every generation of its class.
///
/// Pure: no clock, no files. The caller passes `now` and purges its plaintext cache
/// for each class this type reports as dropped. The grace is a duration: it runs on the
/// monotonic clock, which setting the wall clock does not move (DESIGN §8).
package struct KeyLifecycle {
    package private(set) var state: DeviceState
    package private(set) var passcodeSet: Bool
    private var keys: [ProtectionClass: [Keybag.Generation: KeyPair]]
    /// When class A is to be purged after a lock, if that is pending.
    package private(set) var classAPurgeDue: MonotonicInstant?
    /// When the device was locked, while it stays locked: the grace of class A counts
    /// from here (monotonic), also for a passcode set later, and so does
    /// `RequirePasscodeAfterSec=` (boot time).
    package private(set) var lockedAt: ClockReading?

    /// The state after a (re)start: a restart is a reboot.
    package init(passcodeSet: Bool, classD: KeyPair, allKeysIfNoPasscode: [ProtectionClass: [Keybag.Generation: KeyPair]]) {
        self.passcodeSet = passcodeSet
        if passcodeSet {
            state = .beforeFirstUnlock
            keys = [.none: [Keybag.classDGeneration: classD]]
        } else {
            state = .unlocked
            keys = allKeysIfNoPasscode
        }
    }

    /// The key pair of a class's key generation, if its secret is held now.
    package func keyPair(_ c: ProtectionClass, generation: Keybag.Generation) -> KeyPair? { keys[c]?[generation] }

    /// The key pair of a class's newest generation held, if any.
    package func newestKeyPair(_ c: ProtectionClass) -> KeyPair? { keys[c]?.max { $0.key < $1.key }?.value }

    /// Every held key pair of a class, by generation.
    package func keyPairs(_ c: ProtectionClass) -> [Keybag.Generation: KeyPair] { keys[c] ?? [:] }

    /// Whether a class's secret is held now.
    package func isAvailable(_ c: ProtectionClass) -> Bool { !(keys[c]?.isEmpty ?? true) }

    /// A successful unlock (or an unlock with no passcode set): releases `released` (A, B, C).
    package mutating func unlock(releasing released: [ProtectionClass: [Keybag.Generation: KeyPair]]) {
        // Legal from every state: unlocking while unlocked is a no-op apart from the keys.
        for (c, pairs) in released { keys[c, default: [:]].merge(pairs) { _, new in new } }
        state = .unlocked
        classAPurgeDue = nil
        lockedAt = nil
    }

    /// Locks; returns the classes whose keys were dropped now.
    package mutating func lock(now: ClockReading, grace: Double) -> [ProtectionClass] {
        switch (state, passcodeSet) {
        case (.beforeFirstUnlock, _), (.locked, _):
            // Nothing released that a lock would take back; the state stays.
            return []
        case (.unlocked, false):
            state = .locked
            lockedAt = now
            return []
        case (.unlocked, true):
            state = .locked
            lockedAt = now
            return dropOnLock(lockedAt: now, now: now, grace: grace)
        }
    }

    /// Before sleep: while locked with a passcode set, drops A now (no grace) and B if it
    /// is still held; returns the classes dropped. Nothing otherwise: unlocked, nothing is
    /// purged, and before the first unlock nothing is held.
    package mutating func purgeLockedClassesNow() -> [ProtectionClass] {
        switch (state, passcodeSet) {
        case (.locked, true):
            classAPurgeDue = nil
            drop(.complete)
            drop(.completeUnlessOpen)
            return [.complete, .completeUnlessOpen]
        case (.locked, false), (.unlocked, _), (.beforeFirstUnlock, _):
            return []
        }
    }

    /// Drops B now and A at `lockedAt + grace`, or now if that instant has come.
    private mutating func dropOnLock(lockedAt: ClockReading, now: ClockReading, grace: Double) -> [ProtectionClass] {
        drop(.completeUnlessOpen)
        let due = lockedAt.monotonic.addingTimeInterval(grace)
        if grace > 0, due > now.monotonic {
            classAPurgeDue = due
            return [.completeUnlessOpen]
        }
        drop(.complete)
        classAPurgeDue = nil
        return [.completeUnlessOpen, .complete]
    }

    /// Zeroes a class secret in place, then forgets it: even a reference kept by
    /// mistake elsewhere holds zeros from now on.
    private mutating func drop(_ c: ProtectionClass) {
        for pair in (keys.removeValue(forKey: c) ?? [:]).values { pair.secretKey.removeAll() }
    }

    /// A new key generation was made (a passcode set, changed or removed): its pairs
    /// join the classes held now, and only those; a class not held gets its new key
    /// with the others at the next unlock.
    package mutating func received(_ pairs: [ProtectionClass: KeyPair], generation: Keybag.Generation) {
        for (c, pair) in pairs where isAvailable(c) { keys[c]![generation] = pair }
    }

    /// Zeroes and forgets the keys of a generation the keybag no longer holds.
    package mutating func discard(generation: Keybag.Generation) {
        for c in Keybag.passcodeClasses {
            keys[c]?.removeValue(forKey: generation)?.secretKey.removeAll()
        }
    }

    /// Runs a due class-A purge; returns the classes dropped.
    package mutating func advance(to now: MonotonicInstant) -> [ProtectionClass] {
        guard let due = classAPurgeDue, now >= due else { return [] }
        classAPurgeDue = nil
        switch state {
        case .locked:
            drop(.complete)
            return [.complete]
        case .unlocked, .beforeFirstUnlock:
            return []
        }
    }

    /// Locked long enough (`RequirePasscodeAfterSec=`): every passcode class is dropped and
    /// the state is `beforeFirstUnlock`, as after a restart; returns the classes dropped.
    /// Only while locked with a passcode set: unlocked nothing may go, and without a
    /// passcode there is nothing to ask for.
    package mutating func requirePasscode() -> [ProtectionClass] {
        guard state == .locked, passcodeSet else { return [] }
        let dropped = Keybag.passcodeClasses.filter { isAvailable($0) }
        for c in Keybag.passcodeClasses { drop(c) }
        state = .beforeFirstUnlock
        classAPurgeDue = nil
        lockedAt = nil
        return dropped
    }

    /// A passcode was just set. If the device is locked, the lock rules apply as from the
    /// lock: a Lock that overtook the change must not give class A a longer grace.
    package mutating func passcodeWasSet(now: ClockReading, grace: Double) -> [ProtectionClass] {
        passcodeSet = true
        switch state {
        case .locked: return dropOnLock(lockedAt: lockedAt ?? now, now: now, grace: grace)
        case .unlocked, .beforeFirstUnlock: return []
        }
    }

    /// The passcode was removed: with no data protection every key is held, and
    /// the first unlock has happened.
    package mutating func passcodeWasRemoved(allKeys: [ProtectionClass: [Keybag.Generation: KeyPair]]) {
        passcodeSet = false
        keys = allKeys
        classAPurgeDue = nil
        switch state {
        case .beforeFirstUnlock: state = .unlocked
        case .locked, .unlocked: break
        }
    }
}
