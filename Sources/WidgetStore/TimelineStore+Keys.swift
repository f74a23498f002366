import FoundationEssentials
import SecureMemory
import StoreKeys
import WidgetModel
import WidgetdPOSIX

/// The store's key-facing calls (unlock, lock, passcode set, change and removal) over
/// the keys part's face (`KeyCustody`), and what they do to the timelines: the classes
/// a lock drops are purged from the caches, and a failed attempt that makes a wipe due
/// wipes.
extension TimelineStore {
    // MARK: Unlock and lock

    /// Unlocks with a passcode: `beginUnlock`, `derive` and `finishUnlock` in one call.
    package func unlock(passcode: SecureBytes, now: ClockReading) throws(StoreError) {
        let derivation = try beginUnlock(now: now)
        try finishUnlock(try fromKeys { () throws(KeyError) in try derivation.derive(passcode) }, now: now)
    }

    /// Checks that an attempt is allowed now and returns the derivation to run (off
    /// this thread if wished). Throws `tryAgainLater` while the delay runs.
    /// With no passcode set the derivation is trivial and `finishUnlock` succeeds unless
    /// a lock overtook it.
    ///
    /// - Parameter lockEpoch: `lockEpoch` when the unlock was asked for, if it waited its
    ///   turn since; by default, now.
    package func beginUnlock(now: ClockReading, lockEpoch arrived: LockEpoch? = nil) throws(StoreError) -> PasscodeDerivation {
        try fromKeys { () throws(KeyError) in try custody.beginUnlock(now: now, lockEpoch: arrived) }
    }

    /// Verifies a derived passcode by unwrapping the class secrets. Success releases A,
    /// B and C and resets the failure count; failure is counted and written durably
    /// before `wrongPasscode` is thrown (a repeat of the last wrong passcode is not
    /// counted again), and may crypto-erase the store (`wipeAfterFailedAttempts`).
    ///
    /// A lock since the unlock arrived wins: a right passcode then throws
    /// `unlockInterrupted` and changes nothing (neither counted nor clearing the count);
    /// a wrong one is counted all the same, or a Lock sent behind each guess would make
    /// guessing free.
    package func finishUnlock(_ derived: DerivedPasscode, now: ClockReading) throws(StoreError) {
        let judgement = try judgeUnlock(derived, now: now)
        try complete(judgement, written: judgement.write?.perform(), now: now)
    }

    // MARK: Judged here, the keybag written elsewhere

    /// `finishUnlock` in two steps, for a caller that writes the keybag off this thread
    /// (a slow disk's syncs must hold no one else): the judgement on a derived passcode,
    /// judged and changing nothing yet. Throws at once what needs no write (see
    /// `finishUnlock`). Its `write`, if any, is performed anywhere, then handed to
    /// `complete`; until then `isJudging` holds no wipe may run.
    package func judgeUnlock(_ derived: DerivedPasscode, now: ClockReading) throws(StoreError) -> PasscodeJudgement {
        precondition(!isJudging, "a passcode judgement is already out")
        let judgement = try fromKeys { () throws(KeyError) in try custody.judgeUnlock(derived, now: now) }
        isJudging = judgement.write != nil
        return judgement
    }

    /// `finishSetPasscode` in two steps: see `judgeUnlock`. The generation new writes
    /// are sealed to now is kept (as if a file were sealed to it), since writes go on
    /// being sealed to it until the change is complete.
    package func judgeSetPasscode(_ derived: DerivedPasscodeChange, now: ClockReading) throws(StoreError) -> PasscodeJudgement {
        precondition(!isJudging, "a passcode judgement is already out")
        let inUse = keyGenerationsInUse.map { $0.union([custody.keybag.writeGeneration(.complete)]) }
        let judgement = try fromKeys { () throws(KeyError) in try custody.judgeSetPasscode(derived, now: now, inUse: inUse) }
        isJudging = judgement.write != nil
        return judgement
    }

    /// Applies a judgement once its keybag was `written` (what `KeybagWrite.perform`
    /// returned; `nil` when it writes none): the keybag written is the store's from
    /// now on, then an unlock releases the keys, a passcode change takes effect, a wrong
    /// passcode throws (and crypto-erases when it reached the limit). A lock while the
    /// keybag was written beats an unlock (`unlockInterrupted`).
    package func complete(_ judgement: PasscodeJudgement, written: WrittenKeybag?, now: ClockReading) throws(StoreError) {
        isJudging = false
        purge(try wipingWhenDue { () throws(StoreError) in
            try fromKeys { () throws(KeyError) in try custody.complete(judgement, written: written?.result, now: now) }
        })
        guard case .unlocked = judgement.outcome, custody.keybag.passcodeSet else { return }
        try take(.passcodeProved)
    }

    /// Whether files that carried no anchor on a moved counter were opened on
    /// `--start-over` and wait for the passcode to be anchored (see `RollbackAnchor.check`).
    package var awaitingPasscodeToAnchor: Bool { anchor.isAwaitingProof }

    /// Runs a custody operation; when it counted the failure that reaches
    /// `wipeAfterFailedAttempts`, crypto-erases and throws `wiped` instead of its error.
    private func wipingWhenDue<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do throws(StoreError) {
            return try body()
        } catch {
            guard custody.wipeDue else { throw error }
            try wipe()
            throw .wiped
        }
    }

    /// Locks: what surfaces may show changes at once; with a passcode set the class-B
    /// key and B plaintext not open are dropped now, class A after `classAGrace`.
    /// Every unlock that arrived before it and has not finished will fail
    /// (`finishUnlock`), whatever the state was.
    ///
    /// `purgeAtOnce` (before sleep, DESIGN §8): classes A and B are purged now, with no
    /// grace for A and no exception for open B timelines, also if the device was locked
    /// already.
    package func lock(now: ClockReading, purgeAtOnce: Bool = false) {
        purge(custody.lock(now: now))
        guard purgeAtOnce else { return }
        for c in custody.purgeLockedClassesNow() { cache.purge(c, keepingOpen: false) }
    }

    /// Runs the purges that are due at `now` (class A after its grace period).
    package func advance(to now: ClockReading) {
        purge(custody.advance(to: now))
    }

    /// When the device has been locked `requirePasscodeAfter` seconds (measured from the
    /// lock on the boot-time clock: time asleep counts), while it is locked with a
    /// passcode set; `nil` otherwise or when that is off. An unlock cancels it; after a
    /// restart the device is `beforeFirstUnlock` anyway.
    package var requirePasscodeDue: BootInstant? {
        guard let after = configuration.requirePasscodeAfter, passcodeSet, deviceState == .locked,
            let lockedAt = custody.lifecycle.lockedAt
        else { return nil }
        return lockedAt.boottime.addingTimeInterval(after)
    }

    /// Locked long enough (DESIGN §8, iOS's inactivity restart): classes A, B and C and
    /// all their plaintext are purged (open B timelines too) and the state is
    /// `beforeFirstUnlock` again, as after a restart. Only while locked with a passcode
    /// set; otherwise nothing changes.
    package func requirePasscode() {
        for c in custody.requirePasscode() { cache.purge(c, keepingOpen: false) }
    }

    private func purge(_ classes: [ProtectionClass]) {
        for c in classes { cache.purge(c, keepingOpen: c == .completeUnlessOpen) }
    }

    // MARK: Passcode

    /// Sets (`current` nil, no passcode yet), changes, or removes (`new` nil) the passcode:
    /// `beginSetPasscode`, `derive` and `finishSetPasscode` in one call.
    package func setPasscode(current: SecureBytes?, new: SecureBytes?, now: ClockReading) throws(StoreError) {
        let change = try beginSetPasscode(hasCurrent: current != nil, hasNew: new != nil, now: now)
        try finishSetPasscode(try fromKeys { () throws(KeyError) in try change.derive(current: current, new: new) }, now: now)
    }

    /// Checks that a passcode change is possible now and returns the derivations to run
    /// (off this thread if wished): `passcodeRequired` without a current passcode when
    /// one is set, `noPasscodeSet` to remove one that is not, `tryAgainLater` while the
    /// failed-attempt delay runs.
    package func beginSetPasscode(hasCurrent: Bool, hasNew: Bool, now: ClockReading) throws(StoreError) -> PasscodeChange {
        try fromKeys { () throws(KeyError) in try custody.beginSetPasscode(hasCurrent: hasCurrent, hasNew: hasNew, now: now) }
    }

    /// Applies a derived passcode change. Only the keybag is rewritten: the cost does
    /// not depend on the number of timelines. A wrong current passcode counts as a
    /// failed attempt (otherwise this would be a way around the delay) and throws
    /// `wrongPasscode`; a change planned before another one took effect throws
    /// `passcodeRequired` and is not counted.
    ///
    /// A change that a `lock` overtook is applied (it was authorised, and unlocks
    /// nothing): the device stays locked, and a passcode newly set on it brings the lock
    /// rules as from that lock (`KeyLifecycle.passcodeWasSet`).
    package func finishSetPasscode(_ derived: DerivedPasscodeChange, now: ClockReading) throws(StoreError) {
        precondition(!isJudging, "a passcode judgement is already out")
        let inUse = keyGenerationsInUse
        purge(try wipingWhenDue { () throws(StoreError) in
            try fromKeys { () throws(KeyError) in try custody.finishSetPasscode(derived, now: now, inUse: inUse) }
        })
    }

    // MARK: The passcode's step with the login password

    /// Whether the passcode is in step with the login password, as the state directory
    /// records it; `false` if that record cannot be read.
    package func loadPasscodeInStep() -> Bool {
        PasscodeStepFile.load(stateDirectory: stateDirectory)
    }

    /// Records durably (written, synced, renamed) whether the passcode is in step.
    package func savePasscodeInStep(_ inStep: Bool) throws(StoreError) {
        try fromKeys { () throws(KeyError) in try PasscodeStepFile.save(inStep: inStep, stateDirectory: stateDirectory) }
    }
}
