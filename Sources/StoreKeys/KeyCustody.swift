// Target StoreKeys: the store's keys. Its face, for WidgetStore's `TimelineStore`, is
// `KeyCustody`: the key state (`lifecycle`, `keybag`, `subkeys`, `lockEpoch`,
// `retryAfter`, `wipeDue`), `beginUnlock`/`finishUnlock`, `lock`, `advance`,
// `requirePasscode`, `beginSetPasscode`/`finishSetPasscode` (each finish also in two
// steps, `judgeUnlock`/`judgeSetPasscode` then `complete`, with the `KeybagWrite`
// between them performed anywhere), `dropGenerations`, and
// `keyPair(_:generation:)`, the key pair of a class and generation, and
// `classWrapKey(_:generation:)`, the wrap key derived from it; with the injected
// sources it is built from (`DeviceKeySource`, `PasscodeVerifier`, `RollbackCounter`)
// and `KeyEncryptionKeySupply` for the write path.
// It cannot see timelines (WidgetStore is above it) nor the ledger (StoreLedger, its
// sibling): what a keybag save needs beside it (the ledger's save) is handed in as a
// closure (`KeybagCompanion`, `anchorUnanchored`), and the classes a lock drops are
// returned for the store to purge.
// Its files are written through StoreFiles' `FileSystem`; the facade reaches
// `PasscodeStepFile` from `TimelineStore+Keys.swift`.
// It throws `KeyError` (the anchor's errors carried as `.anchor`, the files' as
// `.file`; an injected source throws `KeyError` itself); the facade maps it with
// `StoreError.init(_: KeyError)`.

import Glibc
import FoundationEssentials
import SecureMemory
import StoreAnchor
import StoreFiles
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX

/// Key custody: the device key (from an injected `DeviceKeySource`), its subkeys, the
/// keybag and the key lifecycle, and every operation that changes them: unlock, lock,
/// the class-A purge, passcode set, change and removal, and counting failed attempts.
///
/// It owns no timeline and no cache: each operation that drops class keys returns the
/// classes dropped, and the store purges its plaintext for them. A wrong passcode that
/// reaches `wipeAfterFailedAttempts` is counted durably, then `wipeDue` says so and the
/// store (which owns the files a wipe removes) erases.
///
/// Every keybag save is anchored to the rollback counter when there is one
/// (`RollbackAnchor`, DESIGN §9): written first, then counted, so a keybag restored
/// from before any change (a failed attempt above all) is refused at open.
///
/// Threading: single-threaded, on the store's thread (see `TimelineStore`).
package final class KeyCustody {
    private let stateDirectory: String
    /// Where the device key comes from; asked again after a wipe.
    package let source: any DeviceKeySource
    /// Where passcode attempts are verified and counted beyond the files (the TPM), if
    /// anywhere: a passcode set with it is tangled with its secret (`PasscodeVerifier`).
    package let verifier: (any PasscodeVerifier)?
    /// Anchors every keybag save to the rollback counter (none in software mode).
    package let anchor: RollbackAnchor
    /// The tunables it reads (cost of a new passcode, grace, wipe limit).
    package var configuration: StoreConfiguration

    package private(set) var deviceKey: DeviceKey
    package private(set) var subkeys: DeviceSubkeys
    package private(set) var keybag: Keybag
    package private(set) var lifecycle: KeyLifecycle
    /// Whether the keybag was made by the last `open()` (a new store).
    package private(set) var created: Bool
    /// The locks so far (see `TimelineStore.lockEpoch`). Kept across a wipe.
    package private(set) var lockEpoch = LockEpoch()
    /// Set when a counted failure reached `wipeAfterFailedAttempts`: the store must wipe.
    package private(set) var wipeDue = false
    /// Writes what a keybag needs beside it (the catalog) before a new keybag, or one
    /// migrated from the previous format, is saved: a keybag is never without it.
    private let beforeSavingKeybag: KeybagCompanion

    /// See `beforeSavingKeybag`; told the subkeys, whether the keybag is migrated, and
    /// the rollback anchors the catalog is to carry.
    package typealias KeybagCompanion = (DeviceSubkeys, _ migrated: Bool, AnchorValues) throws(KeyError) -> Void

    package var keybagPath: String { "\(stateDirectory)/\(Keybag.fileName)" }

    /// Opens (or creates, for a new store) the keys of `stateDirectory`.
    package init(
        stateDirectory: String, source: any DeviceKeySource, verifier: (any PasscodeVerifier)? = nil,
        anchor: RollbackAnchor, configuration: StoreConfiguration, beforeSavingKeybag: @escaping KeybagCompanion
    ) throws(KeyError) {
        self.stateDirectory = stateDirectory
        self.source = source
        self.verifier = verifier
        self.anchor = anchor
        self.configuration = configuration
        self.beforeSavingKeybag = beforeSavingKeybag
        let opened = try Self.open(
            stateDirectory: stateDirectory, source: source, anchor: anchor, cost: configuration.kdfCost,
            companion: beforeSavingKeybag)
        (deviceKey, subkeys, keybag, lifecycle, created) = opened
    }

    /// Opens the keys again after a wipe removed them: a new device key (unless the
    /// source cannot destroy it), a new keybag, no passcode, unlocked.
    package func reopen() throws(KeyError) {
        let opened = try Self.open(
            stateDirectory: stateDirectory, source: source, anchor: anchor, cost: configuration.kdfCost,
            companion: beforeSavingKeybag)
        (deviceKey, subkeys, keybag, lifecycle, created) = opened
        wipeDue = false
    }

    /// The one way keys are opened, at start and after a wipe.
    private static func open(
        stateDirectory: String, source: any DeviceKeySource, anchor: RollbackAnchor, cost: KDFCost,
        companion: KeybagCompanion
    ) throws(KeyError) -> (DeviceKey, DeviceSubkeys, Keybag, KeyLifecycle, Bool) {
        let path = "\(stateDirectory)/\(Keybag.fileName)"
        let deviceKey = try DeviceKey.load(from: source, mayCreate: !FileSystem.exists(path))
        let subkeys = try DeviceSubkeys(deviceKey)
        var keybag: Keybag
        let created: Bool
        if let existing = try Keybag.load(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC) {
            // Before the counter is read: a keybag is only ever anchored to the counter it
            // was made with, never to the one a state directory's plain files now name.
            guard existing.binding == source.keybagBinding else {
                throw .anchor(.rollbackCounter(
                    reason: "the keybag was made with other TPM2 NV indices than \(stateDirectory) names now: refused, not re-anchored"))
            }
            keybag = existing
            created = false
        } else {
            keybag = try Keybag.create(cost: cost, deviceWrapKey: subkeys.classWrap)
            keybag.binding = source.keybagBinding
            // A new store's settings are written before its keybag: a power cut between the
            // two must not leave a keybag without settings, which reads as settings removed
            // from an existing store and closes them (scripts/test-power-loss cuts there).
            if !FileSystem.exists("\(stateDirectory)/\(SettingsFile.fileName)") {
                let defaults: [UInt8]
                do { defaults = Array(try JSONEncoder().encode(Settings())) } catch {
                    preconditionFailure("the default settings always encode: \(error)")
                }
                try throughFiles { () throws(FileError) in
                    try SettingsFile.write(defaults, stateDirectory: stateDirectory, macKey: subkeys.settingsMAC)
                }
            }
            // A new store's two files are anchored together (DESIGN §9).
            try anchoringKeys { () throws(AnchoredSaveError<KeyError>) in
                try anchor.anchor([.keybag, .catalog]) { (values) throws(KeyError) in
                    try companion(subkeys, false, values)
                    keybag.anchors = values
                    try keybag.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
                }
            }
            created = true
        }
        if keybag.readVersion == Keybag.version1 {
            // Migrated: the next reader finds the current format (its generation 0 is the
            // old keys). Not anchored: the store's check at open judges it as it was read.
            // A version 2 keybag has its catalog already, and is written as version 3 at
            // its next change.
            try companion(subkeys, true, .none)
            try keybag.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
        }
        let classD: KeyPair
        var pairs: [ProtectionClass: [Keybag.Generation: KeyPair]] = [:]
        do throws(CryptoError) {
            classD = try keybag.unwrapClassD(with: subkeys.classWrap)
            if !keybag.passcodeSet { pairs = try keybag.unwrapAll(with: subkeys.classWrap) }
        } catch {
            throw KeyError.reading(path, error)
        }
        pairs[.none] = [Keybag.classDGeneration: classD]
        let lifecycle = KeyLifecycle(passcodeSet: keybag.passcodeSet, classD: classD, allKeysIfNoPasscode: pairs)
        return (deviceKey, subkeys, keybag, lifecycle, created)
    }

    /// Seconds until the next unlock attempt is allowed, or `nil` if it is allowed now:
    /// the longer of the keybag's delay and, for a passcode tangled with the verifier,
    /// the verifier's lockout (the TPM's count, which no restored keybag resets).
    package func retryAfter(now: ClockReading) -> Double? {
        let delay = delayAfterFailures(now: now)
        guard keybag.passcodeSet, keybag.tangleBlob != nil, let verifier, let lockout = verifier.lockoutWait() else {
            return delay
        }
        return max(delay ?? 0, lockout)
    }

    /// The keybag's own delay after failed attempts. What an attempt already derived is
    /// re-checked against (the verifier judged it in the derivation, and counted it: a
    /// lockout that attempt caused must not stop it being counted here too).
    ///
    /// The keybag keeps the last failure's date, so that the delay survives a restart;
    /// the first time this process looks at a failure, the wall clock says how much of
    /// the delay is left, and from then on the monotonic clock counts it down: a wall
    /// clock set forward (or back) while the daemon runs neither shortens nor restarts it.
    private func delayAfterFailures(now: ClockReading) -> Double? {
        guard let lastFailure = keybag.lastFailure else { return nil }
        if attemptWait?.failures != keybag.failedAttempts || attemptWait?.lastFailure != lastFailure {
            let left = FailedAttemptPolicy.retryAfter(failures: keybag.failedAttempts, lastFailure: lastFailure, now: now.wall)
            attemptWait = (keybag.failedAttempts, lastFailure, now.monotonic, left ?? 0)
        }
        guard let wait = attemptWait else { return nil }
        // What was left when measured, less the running time since: never more than the
        // schedule's delay (an instant plus a delay, less the same instant, can round up).
        let left = wait.left - max(0, now.monotonic.timeIntervalSince(wait.measuredAt))
        return left > 0 ? left : nil
    }

    /// The failure the delay was last measured for, when (on the monotonic clock), and
    /// how many seconds of it were left then.
    private var attemptWait: (failures: Int, lastFailure: Date, measuredAt: MonotonicInstant, left: Double)?

    // MARK: Unlock and lock

    /// See `TimelineStore.beginUnlock(now:lockEpoch:)`.
    package func beginUnlock(now: ClockReading, lockEpoch arrived: LockEpoch?) throws(KeyError) -> PasscodeDerivation {
        let epoch = arrived ?? lockEpoch
        guard keybag.passcodeSet else { return PasscodeDerivation(mode: .noPasscode, lockEpoch: epoch) }
        if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
        let tangle = try KeyError.secureMemory { () throws(SecureMemoryError) in try subkeys.passcodeTangle.copy() }
        var derivation = PasscodeDerivation(
            mode: .argon2id(salt: keybag.salt, cost: keybag.kdfCost, tangleKey: tangle), lockEpoch: epoch)
        if let blob = keybag.tangleBlob {
            // Tangled: only the verifier that sealed the blob can release what unwraps.
            guard let verifier else { throw .passcodeVerifierFailed(reason: "the passcode was set with a TPM, and none is configured") }
            let tagKey = try KeyError.secureMemory { () throws(SecureMemoryError) in try subkeys.wrongPasscodeTag.copy() }
            derivation.verification = .open(blob: blob, verifier: verifier, tagKey: tagKey, lastWrongTag: keybag.lastWrongTag)
        }
        return derivation
    }

    /// What counts failed attempts now: the verifier's for a passcode tangled with it,
    /// and for one set from now on; the keybag for a passcode set without (software
    /// mode, or a keybag of the previous format).
    package var attemptCounting: AttemptCounting {
        guard let verifier, !keybag.passcodeSet || keybag.tangleBlob != nil else { return .software }
        return verifier.counting
    }

    /// See `TimelineStore.finishUnlock(_:now:)`: the judgement, its keybag written here.
    package func finishUnlock(_ derived: DerivedPasscode, now: ClockReading) throws(KeyError) {
        let judgement = try judgeUnlock(derived, now: now)
        _ = try complete(judgement, written: judgement.write?.perform().result, now: now)
    }

    /// Judges a derived passcode without writing anything: what to write (the count of
    /// a wrong one, the reset of the count by a right one) and what then follows
    /// (`complete`). Throws at once what needs no write: a derivation that proves
    /// nothing, the delay, a repeated wrong passcode, a lock that came first.
    package func judgeUnlock(_ derived: DerivedPasscode, now: ClockReading) throws(KeyError) -> PasscodeJudgement {
        let overtaken = derived.lockEpoch != lockEpoch
        guard keybag.passcodeSet else {
            if overtaken { throw .unlockInterrupted }
            return PasscodeJudgement(outcome: .unlocked([:], lockEpoch: derived.lockEpoch), write: nil)
        }
        guard let key = derived.key, derived.salt == keybag.salt else {
            // Derived before a passcode was set or changed: it proves nothing; not counted.
            throw .passcodeRequired
        }
        // Re-checked here: derivations started together must not bypass the delay.
        if let wait = delayAfterFailures(now: now) { throw .tryAgainLater(retryAfter: wait) }
        guard let released = try verify(key, derived.verdict) else { return try judgeFailure(key, now: now) }
        // The unwrapped secrets are dropped here, which zeroes them.
        if overtaken { throw .unlockInterrupted }
        guard keybag.failedAttempts != 0 || keybag.lastWrongTag != nil else {
            return PasscodeJudgement(outcome: .unlocked(released, lockEpoch: derived.lockEpoch), write: nil)
        }
        var updated = keybag
        updated.failedAttempts = 0
        updated.lastFailure = nil
        updated.lastWrongTag = nil
        return PasscodeJudgement(outcome: .unlocked(released, lockEpoch: derived.lockEpoch), write: write(updated))
    }

    /// Every generation's A, B and C key pairs if `key` (with the verifier's `verdict`)
    /// is the passcode's, `nil` if it is not.
    private func verify(
        _ key: SecureBytes, _ verdict: DerivedPasscode.Verdict
    ) throws(KeyError) -> [ProtectionClass: [Keybag.Generation: KeyPair]]? {
        switch (verdict, keybag.tangleBlob != nil) {
        case (.refused, true): return nil
        case (.unverified, false), (.verified, true): break
        case (.unverified, true), (.verified, false), (.refused, false):
            // Derived for another keybag than this one: it proves nothing; not counted.
            throw .passcodeRequired
        }
        // Without a verifier the newest generation's class A decides whether the
        // passcode is right; if a later one then fails, or a verified key does not
        // unwrap, the keybag itself is damaged.
        do throws(CryptoError) {
            _ = try keybag.unwrapNewestClassA(with: key)
        } catch .authenticationFailure where verdict == .unverified {
            return nil
        } catch {
            throw KeyError.reading(keybagPath, error)
        }
        do throws(CryptoError) { return try keybag.unwrapAll(with: key) } catch { throw KeyError.reading(keybagPath, error) }
    }

    /// The judgement on a wrong passcode: counted (written, then `complete` throws the
    /// answer and sets `wipeDue` when the count reached `wipeAfterFailedAttempts`), or
    /// thrown at once when it repeats the last wrong one, which is not counted again.
    private func judgeFailure(_ key: SecureBytes, now: ClockReading) throws(KeyError) -> PasscodeJudgement {
        let tagBytes = try KeyError.crypto { () throws(CryptoError) in
            try DerivedPasscode.wrongTag(of: key, tagKey: subkeys.wrongPasscodeTag)
        }
        if let last = keybag.lastWrongTag, Sodium.constantTimeEquals(tagBytes, last) {
            throw .wrongPasscode(failedAttempts: keybag.failedAttempts, retryAfter: delayAfterFailures(now: now))
        }
        var updated = keybag
        updated.failedAttempts += 1
        updated.lastFailure = now.wall
        updated.lastWrongTag = tagBytes
        return PasscodeJudgement(outcome: .wrongPasscode(counted: updated), write: write(updated))
    }

    /// Applies a judgement once its keybag is `written` (`nil`: it writes none): the
    /// keybag written is the keybag from now on, then the outcome follows. Returns the
    /// classes dropped (a passcode newly set on a locked device).
    ///
    /// A lock while the keybag was being written beats an unlock as a lock before it
    /// does (`unlockInterrupted`); the count it reset stays reset, since the passcode
    /// was right. A passcode change is applied all the same (see `finishSetPasscode`).
    package func complete(
        _ judgement: PasscodeJudgement, written: Result<Keybag, KeyError>?, now: ClockReading
    ) throws(KeyError) -> [ProtectionClass] {
        if case .success(let saved)? = written { keybag = saved }
        switch judgement.outcome {
        case .unlocked(let released, let epoch):
            if epoch != lockEpoch { throw .unlockInterrupted }
            lifecycle.unlock(releasing: released)
            _ = try written?.get()
            return []
        case .wrongPasscode(let counted):
            // Not written (a full disk past its reserve): counted here all the same, so
            // that the delay and the wipe limit apply to it in this run (fail closed: a
            // guess answered with an error must not be a free one), and the next save
            // writes it. A counter that fails after the keybag is written still leaves
            // the attempt counted, here as on disk.
            if keybag.failedAttempts < counted.failedAttempts { keybag = counted }
            if let limit = configuration.wipeAfterFailedAttempts, limit > 0, keybag.failedAttempts >= limit { wipeDue = true }
            _ = try written?.get()
            throw .wrongPasscode(failedAttempts: keybag.failedAttempts, retryAfter: delayAfterFailures(now: now))
        case .passcodeChanged(let rotation):
            _ = try written?.get()
            return passcodeChanged(rotation, now: now)
        }
    }

    /// Locks; returns the classes whose keys were dropped now (see `TimelineStore.lock`).
    package func lock(now: ClockReading) -> [ProtectionClass] {
        lockEpoch = lockEpoch.next()
        return lifecycle.lock(now: now, grace: configuration.classAGrace)
    }

    /// Purges classes A and B now, if locked with a passcode (before sleep); returns them.
    package func purgeLockedClassesNow() -> [ProtectionClass] { lifecycle.purgeLockedClassesNow() }

    /// Runs the purges due at `now`; returns the classes dropped.
    package func advance(to now: ClockReading) -> [ProtectionClass] { lifecycle.advance(to: now.monotonic) }

    /// Locked for `RequirePasscodeAfterSec=`: see `TimelineStore.requirePasscode()`.
    package func requirePasscode() -> [ProtectionClass] { lifecycle.requirePasscode() }

    // MARK: Passcode

    /// See `TimelineStore.beginSetPasscode(hasCurrent:hasNew:now:)`.
    package func beginSetPasscode(hasCurrent: Bool, hasNew: Bool, now: ClockReading) throws(KeyError) -> PasscodeChange {
        var current: PasscodeDerivation? = nil
        if keybag.passcodeSet {
            guard hasCurrent else { throw .passcodeRequired }
            if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
            current = try beginUnlock(now: now, lockEpoch: nil)
        } else {
            guard hasNew else { throw .noPasscodeSet }
        }
        let salt = try KeyError.crypto { () throws(CryptoError) in try Sodium.randomBytes(count: PasswordHash.saltByteCount) }
        var new: PasscodeDerivation? = nil
        if hasNew {
            let tangle = try KeyError.secureMemory { () throws(SecureMemoryError) in try subkeys.passcodeTangle.copy() }
            new = PasscodeDerivation(
                mode: .argon2id(salt: salt, cost: configuration.kdfCost, tangleKey: tangle), lockEpoch: lockEpoch,
                verification: verifier.map { .enroll($0) })
        }
        return PasscodeChange(basis: keybag.salt, current: current, new: new, newSalt: salt, newCost: configuration.kdfCost)
    }

    /// See `TimelineStore.finishSetPasscode(_:now:)`; returns the classes dropped.
    package func finishSetPasscode(
        _ derived: DerivedPasscodeChange, now: ClockReading, inUse: Set<Keybag.Generation>?
    ) throws(KeyError) -> [ProtectionClass] {
        let judgement = try judgeSetPasscode(derived, now: now, inUse: inUse)
        return try complete(judgement, written: judgement.write?.perform().result, now: now)
    }

    /// Judges a derived passcode change without writing anything.
    ///
    /// Rotates the class keys (`Keybag.rotate`): a new generation for new writes, every
    /// older one re-wrapped under the new key; then drops the generations not in
    /// `inUse` (the ones the store's files are sealed to), when that is known (`nil`: not
    /// yet, they stay).
    package func judgeSetPasscode(
        _ derived: DerivedPasscodeChange, now: ClockReading, inUse: Set<Keybag.Generation>?
    ) throws(KeyError) -> PasscodeJudgement {
        guard derived.basis == keybag.salt, keybag.passcodeSet == (derived.current != nil) else {
            throw .passcodeRequired
        }
        let pairs: [ProtectionClass: [Keybag.Generation: KeyPair]]
        if keybag.passcodeSet {
            guard let current = derived.current, let key = current.key else { throw .passcodeRequired }
            // Re-checked here: a change started before a failed unlock must wait too.
            if let wait = delayAfterFailures(now: now) { throw .tryAgainLater(retryAfter: wait) }
            guard let verified = try verify(key, current.verdict) else { return try judgeFailure(key, now: now) }
            pairs = verified
        } else {
            // No passcode: every generation is held since the open.
            var held: [ProtectionClass: [Keybag.Generation: KeyPair]] = [:]
            for c in Keybag.passcodeClasses { held[c] = lifecycle.keyPairs(c) }
            pairs = held
        }
        let newKey = derived.new?.key
        var updated = keybag
        let (generation, fresh) = try updated.rotate(
            held: pairs, passcodeKey: newKey, salt: derived.newSalt, cost: derived.newCost,
            deviceWrapKey: subkeys.classWrap)
        // The new passcode's blob, or none: a removed passcode's blob goes with it.
        updated.tangleBlob = derived.new?.tangleBlob
        let dropped = inUse.map { updated.dropGenerations(notIn: $0) } ?? []
        let rotation = PasscodeJudgement.Rotation(
            held: pairs, generation: generation, fresh: fresh, dropped: dropped, wasSet: keybag.passcodeSet,
            isSet: newKey != nil)
        return PasscodeJudgement(outcome: .passcodeChanged(rotation), write: write(updated))
    }

    /// What a passcode change does once its keybag is written.
    private func passcodeChanged(_ rotation: PasscodeJudgement.Rotation, now: ClockReading) -> [ProtectionClass] {
        // The agreed keys made ahead for the old generation's public keys will wrap nothing.
        KeyEncryptionKeySupply.shared.removeAll()
        lifecycle.received(rotation.fresh, generation: rotation.generation)
        for number in rotation.dropped { lifecycle.discard(generation: number) }
        switch (rotation.wasSet, rotation.isSet) {
        case (false, true):
            return lifecycle.passcodeWasSet(now: now, grace: configuration.classAGrace)
        case (true, false):
            var all = rotation.held
            for (c, pair) in rotation.fresh { all[c, default: [:]][rotation.generation] = pair }
            for number in rotation.dropped { for c in Keybag.passcodeClasses { all[c]?.removeValue(forKey: number) } }
            all[.none] = lifecycle.keyPairs(.none)
            lifecycle.passcodeWasRemoved(allKeys: all)
            return []
        case (true, true), (false, false):
            return []
        }
    }

    /// Drops from the keybag the older generations no file is sealed to (`inUse`, from
    /// a complete index), and zeroes their held keys. Needs no passcode: their wrapped
    /// secrets are only removed. Returns the generations dropped.
    @discardableResult
    package func dropGenerations(notIn inUse: Set<Keybag.Generation>) throws(KeyError) -> [Keybag.Generation] {
        var updated = keybag
        let dropped = updated.dropGenerations(notIn: inUse)
        guard !dropped.isEmpty else { return [] }
        try save(updated)
        for number in dropped { lifecycle.discard(generation: number) }
        return dropped
    }

    // MARK: Saving

    /// Saves `updated` as the keybag, anchored to the rollback counter (`RollbackAnchor`:
    /// written first, then the counter incremented), and holds it once it is written.
    private func save(_ updated: Keybag) throws(KeyError) {
        keybag = try write(updated).perform().result.get()
    }

    /// `updated`, to be written as the keybag (`KeybagWrite.perform`, on any thread).
    private func write(_ updated: Keybag) -> KeybagWrite {
        KeybagWrite(
            keybag: updated, stateDirectory: stateDirectory, macKey: subkeys.keybagMAC, anchor: anchor,
            roomOnFullDisk: roomOnFullDisk)
    }

    /// Gives back room on a full file system for a keybag save (the store's space
    /// reserve, `SpaceReserve`, which any thread may call); `true` if it did. The
    /// keybag carries the owner's way out: the count of a wrong passcode, its reset, a
    /// passcode change.
    package var roomOnFullDisk: @Sendable () -> Bool = { false }

    /// Anchors a store whose files carry no anchor yet (made before anchors, in tpm2
    /// mode, on a counter never incremented): the keybag and, through `saveLedger`, the
    /// catalog saved together carrying the counter's next value.
    package func anchorUnanchored(saveLedger: (AnchorValues) throws(KeyError) -> Void) throws(KeyError) {
        try anchoringKeys { () throws(AnchoredSaveError<KeyError>) in
            try anchor.anchor([.keybag, .catalog]) { (values) throws(KeyError) in
                try saveLedger(values)
                var anchored = keybag
                anchored.anchors = values
                try anchored.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
                keybag = anchored
            }
        }
    }

    /// Writes the keybag carrying `values`, inside an anchored save the caller makes
    /// with the catalog (`GenerationLedger.saveAnchored(withKeybag:)`).
    package func writeKeybag(carrying values: AnchorValues) throws(FileError) {
        var anchored = keybag
        anchored.anchors = values
        try anchored.write(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
        keybag = anchored
    }

    /// The key pair that opens a file of class `c` sealed to `generation`, if held.
    package func keyPair(_ c: ProtectionClass, generation: Keybag.Generation) -> KeyPair? {
        lifecycle.keyPair(c, generation: c == .none ? Keybag.classDGeneration : generation)
    }

    /// The class wrap key (`ClassWrapKey`) of class `c`'s key `generation`, derived into
    /// secure memory of the caller's own, if that secret key is held now; `nil` if it
    /// is not (or the derivation fails), and the caller wraps by an exchange instead.
    ///
    /// The copy is the caller's: a purge afterwards zeroes the held pair, not it, so a
    /// write that asked before a lock seals with a whole key, and one that asks after
    /// gets `nil`, never a zeroed key. Custody is confined to the store's thread, as
    /// every lock and purge is, so no lock orders the two; the caller zeroes the copy
    /// once its files are sealed.
    package func classWrapKey(_ c: ProtectionClass, generation: Keybag.Generation) -> SecureBytes? {
        guard let pair = keyPair(c, generation: generation) else { return nil }
        let number = c == .none ? Keybag.classDGeneration : generation
        return try? ClassWrapKey.derive(from: pair, classCode: c.code, generation: number)
    }
}
