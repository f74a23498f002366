import FoundationEssentials
import Glibc
import WidgetCrypto
import WidgetModel

/// The encrypted timeline store: device key, keybag, key lifecycle, timeline files
/// and the plaintext cache, behind the interface the daemon calls.
///
/// Threading: single-threaded. Its owner (the daemon's event loop) calls it from one
/// thread; only `PasscodeDerivation.derive`, `PasscodeChange.derive` and the static
/// `commit` (a group commit's sealing and journal append) may run elsewhere. Time is
/// always a parameter (`now`), so tests move it forward without sleeping.
///
/// State directory layout: `device.key` (unless a credential is used), `keybag`,
/// `settings`, `journal` (the write-ahead journal, `Journal`), `timelines/<hex>.wtl`
/// where `<hex>` is a keyed BLAKE2b of the widget id under a device subkey: file names
/// reveal nothing about which widgets exist. One store per directory at a time (the
/// daemon holds a `StateDirectoryLock`).
///
/// Wipe: after `wipe()` the store behaves as freshly created (new device key unless
/// it comes from a credential, new class keys, no passcode, unlocked, no timelines).
/// It first renames `timelines/` to `timelines.wiped/`, so that a crash in the middle
/// is finished at the next open (`finishedInterruptedWipe`).
public final class TimelineStore {
    private let stateDirectory: String
    private let timelinesDirectory: String
    private let credentialsDirectory: String?
    /// The tunables; settable at any time (SIGHUP) without touching released keys.
    public var configuration: StoreConfiguration {
        didSet {
            cache.limit = configuration.maxCachedTimelines
            cache.requireLockedMemory = configuration.requireLockedMemory
        }
    }

    private var deviceKey: DeviceKey
    private var subkeys: Subkeys
    private var keybag: Keybag
    private var lifecycle: KeyLifecycle
    private var cache: PlaintextCache
    /// What each file holds, as verified from disk (or just written), or that it is
    /// absent or failed verification. The store owns its directory, so this stays true
    /// until restart; it spares listing, reloads and presentations an X25519 operation
    /// per file per call. Compact (about 50 bytes and the widget id per file):
    /// placeholders are read back from the verified file when needed.
    private var index = TimelineIndex()
    /// Recent placeholders, which the index does not keep.
    private var placeholders = PlaceholderCache()
    /// Whether `index` covers every file in the directory.
    private var metadataIndexComplete = false
    /// The directory's file names still to verify into the index, listed on first need.
    private var unindexedNames: [String]?
    /// Where writes land first (`nil`: straight into their files).
    private var journal: Journal?
    private let journalCapacity: Int

    /// The device-key subkeys this store uses, derived once at open.
    private struct Subkeys {
        let keybagMAC: SecureBytes
        let classWrap: SecureBytes
        let fileName: SecureBytes
        let wrongPasscodeTag: SecureBytes
        let passcodeTangle: SecureBytes
        let settingsMAC: SecureBytes
        let timelineMetadata: SecureBytes
        let journalMAC: SecureBytes

        init(_ key: DeviceKey) throws(StoreError) {
            keybagMAC = try key.subkey(.keybagMAC)
            classWrap = try key.subkey(.classWrap)
            fileName = try key.subkey(.fileName)
            wrongPasscodeTag = try key.subkey(.wrongPasscodeTag)
            passcodeTangle = try key.subkey(.passcodeTangle)
            settingsMAC = try key.subkey(.settingsMAC)
            timelineMetadata = try key.subkey(.timelineMetadata)
            journalMAC = try key.subkey(.journalMAC)
        }
    }

    private var keybagPath: String { "\(stateDirectory)/\(Keybag.fileName)" }

    /// Opens (or creates) the store in `stateDirectory`. Like a reboot: with a passcode
    /// set the state is `beforeFirstUnlock` and only class D is available.
    ///
    /// - Parameters:
    ///   - credentialsDirectory: `$CREDENTIALS_DIRECTORY`; its `device-key` is used when present.
    ///   - journalCapacity: the size of the write-ahead journal (`Journal`); 0 writes
    ///     every timeline straight into its file.
    ///   - startOver: what to do when the keybag is missing while timeline files or
    ///     journaled writes remain (they cannot be read without it): `false` (the
    ///     default) throws `keybagMissing` and changes nothing; `true` erases them and
    ///     makes a new keybag (`startedOver` then says what went). An explicit act of
    ///     an administrator (`widgetd --start-over`), never a default: a silent reset
    ///     would start unlocked, without the passcode, under the device key only.
    ///   - now: the current time (reserved for time-based recovery; nothing is due at open).
    public init(
        stateDirectory: String, credentialsDirectory: String?, configuration: StoreConfiguration = StoreConfiguration(),
        journalCapacity: Int = TimelineStore.defaultJournalCapacity, startOver: Bool = false, now: Date
    ) throws(StoreError) {
        self.stateDirectory = stateDirectory
        self.journalCapacity = journalCapacity
        self.timelinesDirectory = "\(stateDirectory)/timelines"
        self.credentialsDirectory = credentialsDirectory
        self.configuration = configuration
        self.cache = PlaintextCache(
            limit: configuration.maxCachedTimelines, requireLockedMemory: configuration.requireLockedMemory)
        try FileSystem.makeDirectory(stateDirectory)
        if FileSystem.exists(Self.wipedTimelinesDirectory(stateDirectory)) {
            // A wipe was asked for and cut short: it is finished, as it would have been.
            try Self.finishWipe(stateDirectory: stateDirectory, removingJournal: true)
            finishedInterruptedWipe = true
        }
        try FileSystem.makeDirectory(timelinesDirectory)
        // Before anything is removed or created (a device key, a keybag): a refusal leaves the evidence as it is.
        if !FileSystem.exists("\(stateDirectory)/\(Keybag.fileName)"),
            let remaining = try Self.unreadableWithoutKeybag(stateDirectory: stateDirectory, timelines: timelinesDirectory)
        {
            guard startOver else { throw .keybagMissing(path: "\(stateDirectory)/\(Keybag.fileName)", remaining: remaining) }
            try Self.eraseUnreadable(stateDirectory: stateDirectory, timelines: timelinesDirectory)
            startedOver = remaining
        }
        try Self.removeTemporaryFiles(in: stateDirectory)
        // The timelines directory's leftovers go when it is first listed for the index:
        // reading a directory of every stored timeline must not delay opening.
        let opened = try Self.openKeys(
            stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory, cost: configuration.kdfCost)
        deviceKey = opened.deviceKey
        subkeys = opened.subkeys
        keybag = opened.keybag
        lifecycle = opened.lifecycle
        isFresh = opened.created
        // Folds what a crash left in the journal into the files before anything reads them.
        journal = try openJournal()
    }

    /// Whether this store's keybag was made by this open or the last `wipe()` (a new
    /// state directory, a start over, an erase): nothing of an earlier store is here,
    /// so a missing settings file means the documented defaults, not a lost file.
    public private(set) var isFresh: Bool

    /// Where `wipe()` sets the timelines aside before it destroys the keys.
    private var wipedTimelinesDirectory: String { Self.wipedTimelinesDirectory(stateDirectory) }

    private static func wipedTimelinesDirectory(_ stateDirectory: String) -> String {
        "\(stateDirectory)/timelines.wiped"
    }

    /// Whether this open found a wipe that a crash had cut short, and finished it.
    public private(set) var finishedInterruptedWipe = false

    /// The rest of a wipe once the timelines are set aside: the keybag (the only copy of
    /// the wrapped class secrets), the state-directory device key, the settings, then
    /// the set-aside timelines. At an open after a crash the journal goes too: with a
    /// device key from a credential, which survives, its records would still verify.
    /// Each removal tolerates what an earlier, interrupted run already removed.
    private static func finishWipe(stateDirectory: String, removingJournal: Bool) throws(StoreError) {
        try FileSystem.remove("\(stateDirectory)/\(Keybag.fileName)")
        try FileSystem.remove("\(stateDirectory)/\(DeviceKey.stateFileName)")
        try FileSystem.remove("\(stateDirectory)/\(SettingsFile.fileName)")
        if removingJournal { try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)") }
        try FileSystem.syncDirectory(stateDirectory)
        let aside = wipedTimelinesDirectory(stateDirectory)
        // Never a link: its targets are not ours to remove.
        close(try FileSystem.openDirectory(aside))
        for name in try FileSystem.list(aside) { try FileSystem.remove("\(aside)/\(name)") }
        // The removals inside it durable before the directory itself goes: otherwise a
        // power cut can bring `timelines.wiped/` back after a later start, and that
        // start would take it for a wipe still to finish and erase a newer keybag.
        try FileSystem.syncDirectory(aside)
        guard rmdir(aside) == 0 else { throw .io(operation: "rmdir", path: aside, errno: errno) }
        try FileSystem.syncDirectory(stateDirectory)
    }

    /// What `startOver` erased at this open because the keybag was missing (e.g. "3
    /// timeline files"), or `nil` if it erased nothing.
    public private(set) var startedOver: String?

    /// What a missing keybag leaves unreadable: the timeline files and the journal's
    /// writes, described for the start error; `nil` if there is nothing (a fresh directory).
    private static func unreadableWithoutKeybag(stateDirectory: String, timelines: String) throws(StoreError) -> String? {
        let files = try FileSystem.list(timelines).filter { $0.hasSuffix(TimelineFile.fileExtension) }.count
        var remaining: [String] = []
        if files > 0 { remaining.append("\(files) timeline file\(files == 1 ? "" : "s")") }
        if try Journal.holdsRecords(stateDirectory: stateDirectory) { remaining.append("the journal's writes") }
        return remaining.isEmpty ? nil : remaining.joined(separator: " and ")
    }

    /// Starting over: removes every timeline file and the journal, which no key can
    /// open any more. The device key and the settings stay (the settings are the
    /// user's, authenticated by the device key, and closing them is never reset here).
    private static func eraseUnreadable(stateDirectory: String, timelines: String) throws(StoreError) {
        try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)")
        try FileSystem.syncDirectory(stateDirectory)
        for name in try FileSystem.list(timelines) { try FileSystem.remove("\(timelines)/\(name)") }
        try FileSystem.syncDirectory(timelines)
    }

    /// The journal's size unless the caller says otherwise: about a thousand writes of
    /// 3 KiB between folds.
    public static let defaultJournalCapacity = Journal.defaultCapacity

    private func openJournal() throws(StoreError) -> Journal? {
        guard journalCapacity > 0 else {
            // A journal left by a run that had one still holds acknowledged writes.
            guard FileSystem.exists("\(stateDirectory)/\(Journal.fileName)") else { return nil }
            try Journal(
                stateDirectory: stateDirectory, timelinesDirectory: timelinesDirectory, macKey: subkeys.journalMAC
            ).fold()
            try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)")
            try FileSystem.syncDirectory(stateDirectory)
            return nil
        }
        do throws(StoreError) {
            return try Journal(
                stateDirectory: stateDirectory, timelinesDirectory: timelinesDirectory, capacity: journalCapacity,
                macKey: subkeys.journalMAC)
        } catch .io(_, _, ENOSPC) {
            // A full disk: its records (if any) are folded already; writes go straight to
            // their files, as without a journal, and it is tried again at the next open.
            try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)")
            try FileSystem.syncDirectory(stateDirectory)
            journalUnavailable = .io(operation: "preallocate", path: "\(stateDirectory)/\(Journal.fileName)", errno: ENOSPC)
            return nil
        }
    }

    /// Told of each entry of `timelines/` that indexing refused to open (a FIFO, a
    /// symbolic link, a file of another user: `StoreError.unsafeEntry`), so that the
    /// daemon logs it; the entry is skipped and every other widget is listed.
    public var refusedEntry: (StoreError) -> Void = { _ in }

    /// Why the store runs without its journal although one was asked for (a full disk
    /// at open), or `nil`.
    public private(set) var journalUnavailable: StoreError?

    /// How many journaled writes the open found and folded into their files: writes
    /// acknowledged before a crash (or a stop) that had not reached their files yet.
    public var recoveredJournalRecords: Int { journal?.recoveredRecords ?? 0 }

    /// Folds the journal into the timeline files now (each widget's newest write once)
    /// and empties it; an orderly stop calls this so the files alone hold everything.
    public func checkpoint() throws(StoreError) {
        try journal?.fold()
    }

    private static func openKeys(
        stateDirectory: String, credentialsDirectory: String?, cost: KDFCost
    ) throws(StoreError) -> (deviceKey: DeviceKey, subkeys: Subkeys, keybag: Keybag, lifecycle: KeyLifecycle, created: Bool) {
        let path = "\(stateDirectory)/\(Keybag.fileName)"
        let deviceKey = try DeviceKey.load(
            stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory, mayCreate: !FileSystem.exists(path))
        let subkeys = try Subkeys(deviceKey)
        let keybag: Keybag
        let created: Bool
        if let existing = try Keybag.load(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC) {
            keybag = existing
            created = false
        } else {
            keybag = try Keybag.create(cost: cost, deviceWrapKey: subkeys.classWrap).0
            // A new store's settings are written before its keybag: a power cut between the
            // two must not leave a keybag without settings, which reads as settings removed
            // from an existing store and closes them (found by the power-loss test, with a
            // credential device key, in a wipe cut at its second file).
            if !FileSystem.exists("\(stateDirectory)/\(SettingsFile.fileName)") {
                let defaults: [UInt8]
                do { defaults = Array(try JSONEncoder().encode(Settings())) } catch {
                    preconditionFailure("the default settings always encode: \(error)")
                }
                try SettingsFile.save(defaults, stateDirectory: stateDirectory, macKey: subkeys.settingsMAC)
            }
            try keybag.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
            created = true
        }
        let deviceWrapped: [ProtectionClass] = keybag.passcodeSet ? [.none] : Keybag.order
        var pairs: [ProtectionClass: KeyPair] = [:]
        for c in deviceWrapped {
            do { pairs[c] = try keybag.unwrap(c, with: subkeys.classWrap) } catch { throw .reading(path, error) }
        }
        let lifecycle = KeyLifecycle(passcodeSet: keybag.passcodeSet, classD: pairs[.none]!, allKeysIfNoPasscode: pairs)
        return (deviceKey, subkeys, keybag, lifecycle, created)
    }

    private static func removeTemporaryFiles(in directory: String) throws(StoreError) {
        for name in try FileSystem.list(directory) where name.hasPrefix(".tmp-") {
            try FileSystem.remove("\(directory)/\(name)")
        }
    }

    // MARK: State

    /// `beforeFirstUnlock`, `unlocked` or `locked`.
    public var deviceState: DeviceState { lifecycle.state }

    /// Whether a passcode is set (otherwise there is no data protection).
    public var passcodeSet: Bool { keybag.passcodeSet }

    /// Whether the secret key of class `c` is held now (class `none` always is).
    public func isKeyAvailable(_ c: ProtectionClass) -> Bool { lifecycle.isAvailable(c) }

    /// Consecutive failed unlock attempts (survives restarts).
    public var failedAttempts: Int { keybag.failedAttempts }

    /// Seconds until the next unlock attempt is allowed, or `nil` if it is allowed now.
    public func retryAfter(now: Date) -> Double? {
        FailedAttemptPolicy.retryAfter(failures: keybag.failedAttempts, lastFailure: keybag.lastFailure, now: now)
    }

    /// When `advance(to:)` must next be called (the class-A purge), or `nil` if nothing is pending.
    public var nextDeadline: Date? { lifecycle.classAPurgeDue }

    /// The locks so far. A caller that queues an unlock notes it when the call arrives
    /// and passes it to `beginUnlock(now:lockEpoch:)`, so that a Lock after the arrival
    /// wins even over an unlock that had not begun yet. Kept across `wipe()`.
    public private(set) var lockEpoch = LockEpoch()

    // MARK: Unlock and lock

    /// Unlocks with a passcode: `beginUnlock`, `derive` and `finishUnlock` in one call.
    public func unlock(passcode: SecureBytes, now: Date) throws(StoreError) {
        let derivation = try beginUnlock(now: now)
        try finishUnlock(try derivation.derive(passcode), now: now)
    }

    /// Checks that an attempt is allowed now and returns the derivation to run (off
    /// this thread if wished). Throws `tryAgainLater` while the delay runs.
    /// With no passcode set the derivation is trivial and `finishUnlock` succeeds unless
    /// a lock overtook it.
    ///
    /// - Parameter lockEpoch: `lockEpoch` when the unlock was asked for, if it waited its
    ///   turn since; by default, now.
    public func beginUnlock(now: Date, lockEpoch arrived: LockEpoch? = nil) throws(StoreError) -> PasscodeDerivation {
        let epoch = arrived ?? lockEpoch
        guard keybag.passcodeSet else { return PasscodeDerivation(mode: .noPasscode, lockEpoch: epoch) }
        if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
        let tangle = try crypto { () throws(CryptoError) in try subkeys.passcodeTangle.copy() }
        return PasscodeDerivation(
            mode: .argon2id(salt: keybag.salt, cost: keybag.kdfCost, tangleKey: tangle), lockEpoch: epoch)
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
    public func finishUnlock(_ derived: DerivedPasscode, now: Date) throws(StoreError) {
        let overtaken = derived.lockEpoch != lockEpoch
        guard keybag.passcodeSet else {
            if overtaken { throw .unlockInterrupted }
            lifecycle.unlock(releasing: [:])
            return
        }
        guard let key = derived.key, derived.salt == keybag.salt else {
            // Derived before a passcode was set or changed: it proves nothing; not counted.
            throw .passcodeRequired
        }
        // Re-checked here: derivations started together must not bypass the delay.
        if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
        guard let released = try verify(key) else { try recordFailure(key, now: now) }
        // The unwrapped secrets are dropped here, which zeroes them.
        if overtaken { throw .unlockInterrupted }
        lifecycle.unlock(releasing: released)
        if keybag.failedAttempts != 0 || keybag.lastWrongTag != nil {
            var updated = keybag
            updated.failedAttempts = 0
            updated.lastFailure = nil
            updated.lastWrongTag = nil
            try updated.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
            keybag = updated
        }
    }

    /// The A, B and C key pairs if `key` is the passcode key, `nil` if it is not.
    private func verify(_ key: SecureBytes) throws(StoreError) -> [ProtectionClass: KeyPair]? {
        var pairs: [ProtectionClass: KeyPair] = [:]
        // The first class decides whether the passcode is right; if a later one then
        // fails, the keybag itself is damaged.
        for (index, c) in Keybag.passcodeClasses.enumerated() {
            do throws(CryptoError) {
                pairs[c] = try keybag.unwrap(c, with: key)
            } catch .authenticationFailure where index == 0 {
                return nil
            } catch {
                throw .reading(keybagPath, error)
            }
        }
        return pairs
    }

    /// Counts a wrong passcode durably, then throws the answer.
    private func recordFailure(_ key: SecureBytes, now: Date) throws(StoreError) -> Never {
        let tag = try crypto { () throws(CryptoError) in try KeyedHash.hash(key, key: subkeys.wrongPasscodeTag) }
        let tagBytes = tag.withUnsafeBytes { Array($0) }
        if let last = keybag.lastWrongTag,
            tagBytes.withUnsafeBytes({ t in last.withUnsafeBytes { Sodium.constantTimeEquals(t, $0) } })
        {
            throw .wrongPasscode(failedAttempts: keybag.failedAttempts, retryAfter: retryAfter(now: now))
        }
        var updated = keybag
        updated.failedAttempts += 1
        updated.lastFailure = now
        updated.lastWrongTag = tagBytes
        try updated.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
        keybag = updated
        if let limit = configuration.wipeAfterFailedAttempts, limit > 0, updated.failedAttempts >= limit {
            try wipe()
            throw .wiped
        }
        throw .wrongPasscode(failedAttempts: updated.failedAttempts, retryAfter: retryAfter(now: now))
    }

    /// Locks: what surfaces may show changes at once; with a passcode set the class-B
    /// key and B plaintext not open are dropped now, class A after `classAGrace`.
    /// Every unlock that arrived before it and has not finished will fail
    /// (`finishUnlock`), whatever the state was.
    ///
    /// `purgeAtOnce` (before sleep, DESIGN §8): classes A and B are purged now, with no
    /// grace for A and no exception for open B timelines, also if the device was locked
    /// already.
    public func lock(now: Date, purgeAtOnce: Bool = false) {
        lockEpoch = lockEpoch.next()
        purge(lifecycle.lock(now: now, grace: configuration.classAGrace))
        guard purgeAtOnce else { return }
        for c in lifecycle.purgeLockedClassesNow() { cache.purge(c, keepingOpen: false) }
    }

    /// Runs the purges that are due at `now` (class A after its grace period).
    public func advance(to now: Date) {
        purge(lifecycle.advance(to: now))
    }

    private func purge(_ classes: [ProtectionClass]) {
        for c in classes { cache.purge(c, keepingOpen: c == .completeUnlessOpen) }
    }

    // MARK: Passcode

    /// Sets (`current` nil, no passcode yet), changes, or removes (`new` nil) the passcode:
    /// `beginSetPasscode`, `derive` and `finishSetPasscode` in one call.
    public func setPasscode(current: SecureBytes?, new: SecureBytes?, now: Date) throws(StoreError) {
        let change = try beginSetPasscode(hasCurrent: current != nil, hasNew: new != nil, now: now)
        try finishSetPasscode(try change.derive(current: current, new: new), now: now)
    }

    /// Checks that a passcode change is possible now and returns the derivations to run
    /// (off this thread if wished): `passcodeRequired` without a current passcode when
    /// one is set, `noPasscodeSet` to remove one that is not, `tryAgainLater` while the
    /// failed-attempt delay runs.
    public func beginSetPasscode(hasCurrent: Bool, hasNew: Bool, now: Date) throws(StoreError) -> PasscodeChange {
        var current: PasscodeDerivation? = nil
        if keybag.passcodeSet {
            guard hasCurrent else { throw .passcodeRequired }
            if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
            current = try beginUnlock(now: now)
        } else {
            guard hasNew else { throw .noPasscodeSet }
        }
        let salt = try crypto { () throws(CryptoError) in try Sodium.randomBytes(count: PasswordHash.saltByteCount) }
        var new: PasscodeDerivation? = nil
        if hasNew {
            let tangle = try crypto { () throws(CryptoError) in try subkeys.passcodeTangle.copy() }
            new = PasscodeDerivation(
                mode: .argon2id(salt: salt, cost: configuration.kdfCost, tangleKey: tangle), lockEpoch: lockEpoch)
        }
        return PasscodeChange(basis: keybag.salt, current: current, new: new, newSalt: salt, newCost: configuration.kdfCost)
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
    public func finishSetPasscode(_ derived: DerivedPasscodeChange, now: Date) throws(StoreError) {
        guard derived.basis == keybag.salt, keybag.passcodeSet == (derived.current != nil) else {
            throw .passcodeRequired
        }
        let pairs: [ProtectionClass: KeyPair]
        if keybag.passcodeSet {
            guard let key = derived.current?.key else { throw .passcodeRequired }
            // Re-checked here: a change started before a failed unlock must wait too.
            if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
            guard let verified = try verify(key) else { try recordFailure(key, now: now) }
            pairs = verified
        } else {
            var held: [ProtectionClass: KeyPair] = [:]
            for c in Keybag.passcodeClasses { held[c] = lifecycle.keyPair(c) }
            pairs = held
        }
        let newKey = derived.new?.key
        var updated = keybag
        try updated.rewrap(
            pairs, passcodeKey: newKey, salt: derived.newSalt, cost: derived.newCost,
            deviceWrapKey: subkeys.classWrap)
        try updated.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
        let wasSet = keybag.passcodeSet
        keybag = updated
        switch (wasSet, newKey != nil) {
        case (false, true):
            purge(lifecycle.passcodeWasSet(now: now, grace: configuration.classAGrace))
        case (true, false):
            var all = pairs
            all[.none] = lifecycle.keyPair(.none)
            lifecycle.passcodeWasRemoved(allKeys: all)
        case (true, true), (false, false):
            break
        }
    }

    // MARK: Wipe

    /// Crypto-erase: destroys the keybag (the only copy of the wrapped class secrets)
    /// and the state-directory device key, removes every timeline and the settings,
    /// and zeroes the cache. Then starts afresh: new keys, no passcode, unlocked.
    ///
    /// A device key supplied as a systemd credential cannot be destroyed from here;
    /// the erase still holds because the class secrets are gone with the keybag.
    public func wipe() throws(StoreError) {
        // First, one durable rename takes every timeline out of the store: from here on
        // a crash is finished at the next open (`finishWipe`), not taken for a keybag
        // lost beside its timelines, nor for a store still to be served.
        guard rename(timelinesDirectory, wipedTimelinesDirectory) == 0 else {
            throw .io(operation: "rename", path: timelinesDirectory, errno: errno)
        }
        try FileSystem.syncDirectory(stateDirectory)
        // Then: a journaled write must not come back after the erase.
        try journal?.discard()
        // Closed (and unlocked) now: it is opened again under the new device key below.
        journal = nil
        // Made for the class keys the erase destroys.
        KeyEncryptionKeySupply.shared.removeAll()
        cache.removeAll()
        index.removeAll()
        placeholders.removeAll()
        metadataIndexComplete = false
        unindexedNames = nil
        try Self.finishWipe(stateDirectory: stateDirectory, removingJournal: false)
        try FileSystem.makeDirectory(timelinesDirectory)
        try FileSystem.syncDirectory(stateDirectory)
        // Every file is gone, so the empty index covers the directory: lookups of
        // widgets never stored since leave nothing behind in it.
        metadataIndexComplete = true
        let opened = try Self.openKeys(
            stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory, cost: configuration.kdfCost)
        deviceKey = opened.deviceKey
        subkeys = opened.subkeys
        keybag = opened.keybag
        lifecycle = opened.lifecycle
        isFresh = true
        // Under the new device key's subkey (the discarded one is empty).
        journal = try openJournal()
    }

    // MARK: Timelines

    /// The file name for a widget: a keyed hash of its id, never the id itself, so a
    /// hostile id cannot name a path and a directory listing reveals no widget.
    private func fileName(for widget: WidgetID) throws(StoreError) -> String {
        try indexKey(for: widget).fileName
    }

    /// The index key of a widget's file: the digest its file name spells.
    private func indexKey(for widget: WidgetID) throws(StoreError) -> TimelineIndex.Key {
        // The digest is public (it names a file): plain memory, no secure allocation.
        var digest = [UInt8](repeating: 0, count: 16)
        let hashed: Result<Void, CryptoError> = digest.withUnsafeMutableBytes { out in
            Result { () throws(CryptoError) in
                try KeyedHash.publicHash(Array(widget.description.utf8), key: subkeys.fileName, into: out)
            }
        }
        try crypto { () throws(CryptoError) in try hashed.get() }
        return digest.withUnsafeBytes { TimelineIndex.Key(digest: $0) }
    }

    /// A class public key, for tests that write files as the shipped version did.
    func classPublicKey(_ c: ProtectionClass) -> PublicKey { keybag.publicKey(c) }

    /// Reads, parses and verifies a timeline file's header and metadata; also returns
    /// the file's size. `expected` nil accepts any widget whose own file name is `name`.
    private func readSealed(
        name: String, expected: WidgetID?
    ) throws(StoreError) -> (TimelineFile.Sealed, TimelineMetadata, fileBytes: Int)? {
        let path = "\(timelinesDirectory)/\(name)"
        let bytes: [UInt8]
        if let journal, let key = TimelineIndex.Key(fileName: name), let journaled = journal.pending(key) {
            // Written, durable in the journal, not folded into its file yet.
            bytes = journaled
        } else {
            guard let read = try FileSystem.readFile(path, limit: TimelineFile.maximumFileBytes) else { return nil }
            bytes = read
        }
        let sealed = try TimelineFile.parse(bytes, expected: expected, file: path)
        // A file renamed onto another widget's name is not that widget's.
        guard try fileName(for: sealed.header.widget) == name else { throw .corrupt(file: path, reason: .wrongWidget) }
        let metadata = try TimelineFile.openMetadata(
            sealed, metadataKey: subkeys.timelineMetadata, classD: lifecycle.keyPair(.none)!, file: path)
        return (sealed, metadata, bytes.count)
    }

    /// The metadata for one file name, with its placeholder, from the index or verified
    /// from disk. The placeholder comes from `placeholders` or the verified file.
    private func indexedMetadata(
        name: String, widget: WidgetID?, includingPlaceholder: Bool = true
    ) throws(StoreError) -> TimelineMetadata? {
        // Every name the store makes parses; any other file is no widget's.
        guard let key = TimelineIndex.Key(fileName: name) else { return nil }
        switch index[key] {
        case .present(let summary):
            guard summary.hasPlaceholder, includingPlaceholder else { return TimelineMetadata(summary, placeholder: nil) }
            if let placeholder = placeholders.placeholder(key, generation: summary.generation) {
                return TimelineMetadata(summary, placeholder: placeholder)
            }
            return try verify(name: name, key: key, widget: summary.widget)
        case .absent:
            return nil
        case .corrupt(let reason):
            throw .corrupt(file: "\(timelinesDirectory)/\(name)", reason: reason)
        case nil:
            if metadataIndexComplete { return nil }
            return try verify(name: name, key: key, widget: widget)
        }
    }

    /// Reads and verifies one file and records the verdict in the index: its metadata,
    /// its absence, or its corruption (thrown too). An I/O error is thrown and not
    /// recorded: it may pass.
    private func verify(name: String, key: TimelineIndex.Key, widget: WidgetID?) throws(StoreError) -> TimelineMetadata? {
        do throws(StoreError) {
            guard let (_, metadata, fileBytes) = try readSealed(name: name, expected: widget) else {
                recordAbsent(key)
                return nil
            }
            index.record(key, metadata, fileBytes: fileBytes)
            placeholders.set(key, metadata.placeholder, generation: metadata.generation)
            return metadata
        } catch {
            guard case .corrupt(_, let reason) = error else { throw error }
            index.recordCorrupt(key, reason)
            placeholders.remove(key)
            throw error
        }
    }

    /// Records metadata just written under file `name`, `fileBytes` long.
    private func record(_ name: String, _ metadata: TimelineMetadata, fileBytes: Int) {
        guard let key = TimelineIndex.Key(fileName: name) else { return }
        index.record(key, metadata, fileBytes: fileBytes)
        placeholders.set(key, metadata.placeholder, generation: metadata.generation)
    }

    /// Forgets what the index knows of file `name`: the next question reads the disk.
    private func forget(_ name: String) {
        guard let key = TimelineIndex.Key(fileName: name) else { return }
        index.forget(key)
        placeholders.remove(key)
    }

    /// Records that no file `key` exists. Once the index covers every file, absence is
    /// implied, so nothing is kept for it.
    private func recordAbsent(_ key: TimelineIndex.Key) {
        if metadataIndexComplete { index.forget(key) } else { index.recordAbsent(key) }
        placeholders.remove(key)
    }

    /// Replaces a widget's timeline and returns its new generation. Needs only public
    /// keys, so every class is writable in every state. `placeholder` nil keeps the
    /// stored one. The body is cached (class B marked open), except class A while
    /// locked and any class whose key is not held. `quota`, if given, bounds what the
    /// widget's provider stores with it.
    @discardableResult
    public func putTimeline(
        _ widget: WidgetID, protectionClass: ProtectionClass, family: String?, reloadDue: Date?, body: SecureBytes,
        placeholder: [UInt8]?, quota: ProviderQuota? = nil
    ) throws(StoreError) -> UInt64 {
        // A batch of one. The batch hands its body buffer to the cache; the caller's
        // stays the caller's, so the cache gets a copy.
        let write = TimelineWrite(
            widget: widget, protectionClass: protectionClass, family: family, reloadDue: reloadDue,
            body: try crypto { () throws(CryptoError) in try body.copy() }, placeholder: placeholder, quota: quota)
        return try putTimelines([write])[0].get()
    }

    /// One timeline to store with `putTimelines(_:)`: the arguments of `putTimeline`.
    public struct TimelineWrite {
        public let widget: WidgetID
        public let protectionClass: ProtectionClass
        public let family: String?
        public let reloadDue: Date?
        public let body: SecureBytes
        public let placeholder: [UInt8]?
        /// What the widget's provider may store, this write included; `nil` is no bound.
        public let quota: ProviderQuota?

        /// A write; `placeholder` nil keeps the stored one.
        public init(
            widget: WidgetID, protectionClass: ProtectionClass, family: String?, reloadDue: Date?, body: SecureBytes,
            placeholder: [UInt8]?, quota: ProviderQuota? = nil
        ) {
            self.widget = widget
            self.protectionClass = protectionClass
            self.family = family
            self.reloadDue = reloadDue
            self.body = body
            self.placeholder = placeholder
            self.quota = quota
        }
    }

    /// Stores several timelines with one group commit: each succeeds or fails as
    /// `putTimeline` would, in order (a widget written twice gets two generations and
    /// keeps the second), but the files are synced together and the directory once.
    /// Returns each write's generation or error.
    ///
    /// The three steps, `prepareWrites`, `commit` and `finishWrites`, can also be taken
    /// apart, so that the sealing and the file I/O run off the store's thread.
    public func putTimelines(_ writes: [TimelineWrite]) -> [Result<UInt64, StoreError>] {
        finishWrites(Self.commit(prepareWrites(writes)))
    }

    /// A batch of writes checked and numbered on the store's thread, ready for
    /// `commit` on any thread.
    ///
    /// It holds the plaintext bodies (in `SecureBytes`) until it is released.
    public struct PreparedWrites: @unchecked Sendable {
        fileprivate struct Staged {
            let index: Int
            let name: String
            let metadata: TimelineMetadata
            /// The size of the file it will be.
            let fileBytes: Int
            let body: SecureBytes
            let classKey: PublicKey
        }

        fileprivate let writes: [TimelineWrite]
        /// The device's metadata subkey (a reference to the store's; not copied).
        fileprivate let metadataKey: SecureBytes
        fileprivate let staged: [Staged]
        fileprivate let failures: [Int: StoreError]
        fileprivate let directory: String
        fileprivate let journal: Journal?

        /// How many writes the batch holds.
        public var count: Int { writes.count }
    }

    /// What `commit` did with each staged file of a batch: `nil` if it is durable.
    public struct CommittedWrites: @unchecked Sendable {
        fileprivate let prepared: PreparedWrites
        fileprivate let outcomes: [StoreError?]
    }

    /// Checks each write against the limits and its provider's quota, numbers it (later
    /// writes of the same widget, in this batch or the next, build on its generation)
    /// and drops the widget's cached body, which the write replaces. Store state is
    /// touched only here and in `finishWrites`, both on the store's thread.
    ///
    /// A staged write is recorded in the index at once, so the next write's quota
    /// counts it (and a batch still committing); a write that then fails is indexed
    /// again from the disk. A quota is never checked against a partial index: the first
    /// write with one completes the index (DESIGN: fail closed), however large the store.
    public func prepareWrites(_ writes: [TimelineWrite]) -> PreparedWrites {
        var staged: [PreparedWrites.Staged] = []
        var failures: [Int: StoreError] = [:]
        var indexing: StoreError?
        if writes.contains(where: { $0.quota != nil }) {
            do throws(StoreError) { while try indexNextTimelines(limit: .max) != nil {} } catch { indexing = error }
        }
        for (index, write) in writes.enumerated() {
            do throws(StoreError) {
                if write.quota != nil, let indexing { throw indexing }
                let (name, metadata, fileBytes) = try stageForWrite(write)
                // Later writes of the same widget build on this generation.
                record(name, metadata, fileBytes: fileBytes)
                staged.append(PreparedWrites.Staged(
                    index: index, name: name, metadata: metadata, fileBytes: fileBytes, body: write.body,
                    classKey: keybag.publicKey(write.protectionClass)))
            } catch {
                failures[index] = error
            }
        }
        return PreparedWrites(
            writes: writes, metadataKey: subkeys.timelineMetadata, staged: staged, failures: failures,
            directory: timelinesDirectory, journal: journal)
    }

    /// Seals each staged write's file and replaces the files with one group commit.
    /// Pure: touches no store state, so it may run on any thread.
    ///
    /// The files of one class share one key-encryption key, agreed by one ephemeral
    /// X25519 exchange with the class public key (two operations per class in the
    /// batch instead of four per file); each file still has its own fresh body key.
    /// The KEKs are zeroed as soon as every file is sealed and written.
    public static func commit(_ prepared: PreparedWrites) -> CommittedWrites {
        var agreed: [PublicKey: Result<KeyEncryptionKey, StoreError>] = [:]
        for item in prepared.staged where agreed[item.classKey] == nil {
            agreed[item.classKey] = Result { () throws(StoreError) in
                try crypto { () throws(CryptoError) in try KeyEncryptionKeySupply.shared.take(for: item.classKey) }
            }
        }
        let keks = agreed
        defer {
            for case .success(let kek) in keks.values { kek.zero() }
        }
        let metadataKey = prepared.metadataKey
        let files = prepared.staged.map { item in
            (name: item.name, bytes: { @Sendable () throws(StoreError) -> [UInt8] in
                // A class whose exchange failed fails its own files only.
                let kek = try keks[item.classKey]!.get()
                return try TimelineFile.KeyScratch.pool.withScratch { (keys) throws(StoreError) in
                    try crypto { () throws(CryptoError) in
                        try TimelineFile.encode(
                            item.metadata, body: item.body, bodyKEK: kek, metadataKey: metadataKey, keys: keys)
                    }
                }
            })
        }
        let outcomes: [StoreError?]
        if let journal = prepared.journal {
            outcomes = journaled(files, into: journal, directory: prepared.directory)
        } else {
            outcomes = replaced(files, directory: prepared.directory)
        }
        return CommittedWrites(prepared: prepared, outcomes: outcomes)
    }

    /// Replaces each file in place with one group commit.
    private static func replaced(
        _ files: [(name: String, bytes: @Sendable () throws(StoreError) -> [UInt8])], directory: String
    ) -> [StoreError?] {
        do throws(StoreError) {
            return try FileSystem.writeAtomically(directory: directory, sealing: files)
        } catch {
            return Array(repeating: error, count: files.count)
        }
    }

    /// Seals each file and appends the batch to the journal with one `fdatasync`. A
    /// batch too large for the journal is written into its files instead, after a fold,
    /// so that no older journaled write of theirs can replay over them.
    private static func journaled(
        _ files: [(name: String, bytes: @Sendable () throws(StoreError) -> [UInt8])], into journal: Journal,
        directory: String
    ) -> [StoreError?] {
        var outcomes = [StoreError?](repeating: nil, count: files.count)
        var batch: [(key: TimelineIndex.Key, bytes: [UInt8])] = []
        var slots: [Int] = []
        for (slot, file) in files.enumerated() {
            do throws(StoreError) {
                // Every name in a batch is one the store made.
                batch.append((TimelineIndex.Key(fileName: file.name)!, try file.bytes()))
                slots.append(slot)
            } catch {
                outcomes[slot] = error
            }
        }
        guard !batch.isEmpty else { return outcomes }
        do throws(StoreError) {
            if try journal.append(batch) { return outcomes }
            try journal.fold()
            let direct = try FileSystem.writeAtomically(
                directory: directory, files: batch.map { (name: $0.key.fileName, bytes: $0.bytes) })
            for (slot, error) in zip(slots, direct) { outcomes[slot] = error }
        } catch {
            for slot in slots { outcomes[slot] = error }
        }
        return outcomes
    }

    /// Applies a committed batch: indexes each written file (or, after a failure, what
    /// is on disk), caches the bodies, and returns each write's generation or error.
    public func finishWrites(_ committed: CommittedWrites) -> [Result<UInt64, StoreError>] {
        let prepared = committed.prepared
        var results = [Result<UInt64, StoreError>?](repeating: nil, count: prepared.writes.count)
        for (index, error) in prepared.failures { results[index] = .failure(error) }
        for (slot, item) in prepared.staged.enumerated() {
            let write = prepared.writes[item.index]
            if let error = committed.outcomes[slot] {
                reindexFromDisk(name: item.name, widget: write.widget)
                results[item.index] = .failure(error)
                continue
            }
            record(item.name, item.metadata, fileBytes: item.fileBytes)
            if shouldCacheWrite(write.protectionClass), cache.admits(write.body) {
                // The write's own buffer becomes the cached body: no second secure copy.
                // A later write of the same widget in this batch replaces it.
                cache.insert(
                    write.widget, body: write.body, protectionClass: write.protectionClass, generation: item.metadata.generation,
                    isOpen: write.protectionClass == .completeUnlessOpen)
            }
            results[item.index] = .success(item.metadata.generation)
        }
        return results.map { $0! }
    }

    /// Checks one write against the limits and its quota and numbers it; drops the
    /// widget's cached body, which the write replaces. Returns the file's name,
    /// metadata and size.
    private func stageForWrite(_ write: TimelineWrite) throws(StoreError) -> (String, TimelineMetadata, Int) {
        guard write.body.count <= configuration.maxTimelineBytes else { throw .tooLarge(limit: configuration.maxTimelineBytes) }
        if let placeholder = write.placeholder, placeholder.count > configuration.maxPlaceholderBytes {
            throw .tooLarge(limit: configuration.maxPlaceholderBytes)
        }
        if let family = write.family, family.utf8.count > TimelineFile.maximumFamilyBytes {
            throw .tooLarge(limit: TimelineFile.maximumFamilyBytes)
        }
        let name = try fileName(for: write.widget)
        let previous = try? indexedMetadata(name: name, widget: write.widget)
        let metadata = TimelineMetadata(
            widget: write.widget, protectionClass: write.protectionClass, family: write.family,
            generation: (previous?.generation ?? 0) + 1, reloadDue: write.reloadDue,
            placeholder: write.placeholder ?? previous?.placeholder)
        let fileBytes = TimelineFile.encodedCount(metadata, bodyCount: write.body.count)
        if let quota = write.quota { try check(quota, name: name, widget: write.widget, fileBytes: fileBytes) }
        cache.remove(write.widget)
        return (name, metadata, fileBytes)
    }

    /// Throws unless the widget's provider stays within `quota` once file `name` is
    /// `fileBytes` long: a new widget counts one more, a replacement only its change
    /// in size. Damaged files count for nobody (they prove no owner).
    private func check(_ quota: ProviderQuota, name: String, widget: WidgetID, fileBytes: Int) throws(StoreError) {
        let usage = index.usage(of: widget.provider)
        let previous = TimelineIndex.Key(fileName: name).flatMap { index.fileBytes($0) }
        if previous == nil, usage.widgets + 1 > quota.maxWidgets { throw .tooManyWidgets(limit: quota.maxWidgets) }
        if usage.bytes - (previous ?? 0) + fileBytes > quota.maxBytes { throw .tooLarge(limit: quota.maxBytes) }
    }

    /// What `provider`'s stored timelines take, by the index (exact once it is complete).
    public func usage(of provider: String) -> ProviderUsage { index.usage(of: provider) }

    /// After a failed write (a full disk): the previous file is still in place, or the
    /// new one if only the directory sync failed. Index whichever is there; dropping
    /// the entry instead would report the widget missing once the index is complete,
    /// while its file is intact on disk (CrashSafetyTests).
    private func reindexFromDisk(name: String, widget: WidgetID) {
        guard let key = TimelineIndex.Key(fileName: name) else { return }
        do throws(StoreError) {
            _ = try verify(name: name, key: key, widget: widget)
        } catch {
            // A verdict on the file is recorded by `verify`; an I/O error may pass.
            if case .corrupt = error { return }
            forget(name)
        }
    }

    private func shouldCacheWrite(_ c: ProtectionClass) -> Bool {
        switch c {
        case .completeUnlessOpen:
            // Written while locked, or while unlocked: open either way (DESIGN §3).
            true
        case .complete:
            // Nothing of class A may outlive a lock plus its grace period.
            lifecycle.state == .unlocked && lifecycle.isAvailable(.complete)
        case .completeUntilFirstUserAuthentication, .none:
            lifecycle.isAvailable(c)
        }
    }

    /// A widget's body, from the cache or decrypted (and then cached). Throws
    /// `protectedDataUnavailable` when its class key is not held, unless the body is
    /// an open class-B one and `allowOpenClassB` (the caller is its own provider).
    /// The caller owns the returned copy.
    public func readBody(_ widget: WidgetID, allowOpenClassB: Bool) throws(StoreError) -> SecureBytes {
        if let entry = cache.entry(widget) {
            let readable =
                lifecycle.isAvailable(entry.protectionClass)
                || (entry.protectionClass == .completeUnlessOpen && entry.isOpen && allowOpenClassB)
            guard readable else { throw .protectedDataUnavailable }
            return try crypto { () throws(CryptoError) in try entry.body.copy() }
        }
        let key = try indexKey(for: widget)
        let name = key.fileName
        let path = "\(timelinesDirectory)/\(name)"
        // Always verified from disk: the metadata index is no proof of the body.
        guard let (sealed, metadata, _) = try readSealed(name: name, expected: widget) else { throw .widgetNotFound }
        // Verified with the body: a presentation that then needs it reads no file again.
        placeholders.set(key, metadata.placeholder, generation: metadata.generation)
        guard let pair = lifecycle.keyPair(metadata.protectionClass) else { throw .protectedDataUnavailable }
        let body = try TimelineFile.openBody(sealed, classKey: pair, file: path)
        // Not cached in memory that could not be locked: decrypted again next time, and
        // the caller's buffer is the only copy, gone with its request.
        guard cache.admits(body) else { return body }
        let copy = try crypto { () throws(CryptoError) in try body.copy() }
        cache.insert(
            widget, body: body, protectionClass: metadata.protectionClass, generation: metadata.generation,
            isOpen: metadata.protectionClass == .completeUnlessOpen)
        return copy
    }

    /// A widget's metadata and placeholder, in every state; `nil` if none is stored.
    ///
    /// Verified from disk the first time, then served from memory (the store is the
    /// only writer of its directory); the placeholder, which the index does not keep,
    /// comes from a small cache or is read back from the file and verified again.
    public func metadata(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata? {
        try indexedMetadata(name: try fileName(for: widget), widget: widget)
    }

    /// A widget's metadata without its placeholder (`placeholder` is nil), in every
    /// state; `nil` if none is stored. Served from memory once the file is indexed:
    /// for callers that may not need the placeholder (read it with `metadata(_:)`).
    public func metadataWithoutPlaceholder(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata? {
        try indexedMetadata(name: try fileName(for: widget), widget: widget, includingPlaceholder: false)
    }

    /// Every stored timeline's metadata without its placeholder (`placeholder` is nil:
    /// read it with `metadata(_:)`), sorted by widget id, in every state.
    ///
    /// Answered from memory once the directory is indexed. Files that fail
    /// verification are left out (each one throws its typed `corrupt` error from
    /// `metadata(_:)` and `readBody`), so one damaged file does not hide every other widget.
    public func listTimelines() throws(StoreError) -> [TimelineMetadata] {
        while try indexNextTimelines(limit: .max) != nil {}
        return index.summaries.map { TimelineMetadata($0, placeholder: nil) }.sorted { $0.widget < $1.widget }
    }

    /// The stored widgets of `provider` and `kind` (`nil`: any), sorted, in every state;
    /// answered from memory once the directory is indexed, without building every
    /// widget's metadata.
    public func storedWidgets(provider: String?, kind: String?) throws(StoreError) -> [WidgetID] {
        while try indexNextTimelines(limit: .max) != nil {}
        return index.widgets(provider: provider, kind: kind)
    }

    /// Verifies up to `limit` more stored files into the metadata index and returns the
    /// metadata found among them, or `nil` once every file is indexed.
    ///
    /// Verifying a file costs a read and an X25519 operation, so a large store is
    /// indexed in slices between other work rather than all before the daemon is ready.
    /// Damaged files are recorded and left out, as in `listTimelines()`.
    public func indexNextTimelines(limit: Int) throws(StoreError) -> [TimelineMetadata]? {
        guard !metadataIndexComplete else { return nil }
        var names: [String]
        if let unindexedNames {
            names = unindexedNames
        } else {
            let all = try FileSystem.list(timelinesDirectory)
            // Interrupted writes: every write of this store renames or removes its own
            // temporary file before returning, so any found here is a leftover.
            for name in all where name.hasPrefix(".tmp-") { try FileSystem.remove("\(timelinesDirectory)/\(name)") }
            names = all.filter { $0.hasSuffix(TimelineFile.fileExtension) }
            index.reserveCapacity(index.count + names.count)
        }
        unindexedNames = nil
        defer {
            if names.isEmpty {
                metadataIndexComplete = true
                // Absence is implied from now on: what was recorded of it goes.
                index.removeAbsent()
            } else {
                unindexedNames = names
            }
        }
        var found: [TimelineMetadata] = []
        var verified = 0
        while verified < limit, let name = names.last {
            verified += 1
            if let key = TimelineIndex.Key(fileName: name), index[key] == nil {
                do throws(StoreError) {
                    if let metadata = try indexedMetadata(name: name, widget: nil) { found.append(metadata) }
                } catch {
                    // A damaged file is recorded in the index and skipped; a planted entry (a
                    // FIFO, a link, another user's file) is reported and skipped, unread, and
                    // reads as absent; anything else is a real failure.
                    switch error {
                    case .corrupt: break
                    case .unsafeEntry: refusedEntry(error)
                    default: throw error
                    }
                }
            }
            names.removeLast()
        }
        return found
    }

    /// Whether a widget's timeline is open: its body cached with the "open" mark, so that
    /// its provider may still read it while its class-B key is purged.
    public func isOpen(_ widget: WidgetID) -> Bool { cache.isOpen(widget) }

    /// Closes a widget's timeline: drops (and zeroes) its cached body and "open" mark.
    public func closeTimeline(_ widget: WidgetID) {
        cache.remove(widget)
    }

    /// Deletes a widget's timeline durably; `widgetNotFound` if there is none.
    public func deleteTimeline(_ widget: WidgetID) throws(StoreError) {
        cache.remove(widget)
        let key = try indexKey(for: widget)
        let name = key.fileName
        // Its journaled writes go to the file first: none may replay after the removal.
        if let journal, journal.pending(key) != nil { try journal.fold() }
        forget(name)
        guard try FileSystem.remove("\(timelinesDirectory)/\(name)") else {
            recordAbsent(key)
            throw .widgetNotFound
        }
        try FileSystem.syncDirectory(timelinesDirectory)
        recordAbsent(key)
    }

    // MARK: Reload schedule

    /// The widgets whose reload is due at `now` and whose current generation's due
    /// reload was not yet announced, sorted. Covers the files indexed so far.
    ///
    /// The announcements live in the index, beside the dues, so that the daemon keeps
    /// no map of its own per stored timeline; they last until restart, like the index.
    public func unannouncedReloads(dueAt now: Date) -> [WidgetID] { index.unannouncedDue(at: now) }

    /// Records that `widget`'s current generation's due reload was announced; a new
    /// generation is due again.
    public func recordReloadAnnounced(_ widget: WidgetID) throws(StoreError) {
        index.markAnnounced(try indexKey(for: widget))
    }

    /// The earliest unannounced reload due after `now`, for the daemon's wake timer.
    /// Remembers its answer until an indexed timeline changes, so that a reschedule
    /// does not pass over every stored timeline.
    public func nextUnannouncedReload(after now: Date) -> Date? { index.nextDue(after: now) }

    /// The generation the index holds for `widget`, without reading the disk; `nil`
    /// when none is indexed (not stored, or not verified yet).
    public func indexedGeneration(_ widget: WidgetID) throws(StoreError) -> UInt64? {
        guard case .present(let summary) = index[try indexKey(for: widget)] else { return nil }
        return summary.generation
    }

    /// Whether a widget's plaintext is cached (for tests of the purge rules).
    func isCached(_ widget: WidgetID) -> Bool { cache.contains(widget) }

    /// Forgets the cached placeholders (for tests of reading them back from the files).
    func forgetCachedPlaceholders() { placeholders.removeAll() }

    /// The held key pair of a class (for tests that check it is zeroed on purge).
    func heldKeyPair(_ c: ProtectionClass) -> KeyPair? { lifecycle.keyPair(c) }

    // MARK: Settings

    /// The saved settings bytes, or `nil` if none were saved. Authenticated, not secret.
    public func loadSettings() throws(StoreError) -> [UInt8]? {
        try SettingsFile.load(stateDirectory: stateDirectory, macKey: subkeys.settingsMAC)
    }

    /// Saves the settings bytes atomically and durably.
    public func saveSettings(_ bytes: [UInt8]) throws(StoreError) {
        try SettingsFile.save(bytes, stateDirectory: stateDirectory, macKey: subkeys.settingsMAC)
    }
}
