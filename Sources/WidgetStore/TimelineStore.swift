import Foundation
import WidgetCrypto
import WidgetModel

/// The encrypted timeline store: device key, keybag, key lifecycle, timeline files
/// and the plaintext cache, behind the interface the daemon calls.
///
/// Threading: single-threaded. Its owner (the daemon's event loop) calls it from one
/// thread; only `PasscodeDerivation.derive` may run elsewhere. Time is always a
/// parameter (`now`), so tests move it forward without sleeping.
///
/// State directory layout: `device.key` (unless a credential is used), `keybag`,
/// `settings`, `timelines/<hex>.wtl` where `<hex>` is a keyed BLAKE2b of the widget
/// id under a device subkey: file names reveal nothing about which widgets exist.
///
/// Wipe: after `wipe()` the store behaves as freshly created (new device key unless
/// it comes from a credential, new class keys, no passcode, unlocked, no timelines).
public final class TimelineStore {
    private let stateDirectory: String
    private let timelinesDirectory: String
    private let credentialsDirectory: String?
    /// The tunables; settable at any time (SIGHUP) without touching released keys.
    public var configuration: StoreConfiguration {
        didSet { cache.limit = configuration.maxCachedTimelines }
    }

    private var deviceKey: DeviceKey
    private var subkeys: Subkeys
    private var keybag: Keybag
    private var lifecycle: KeyLifecycle
    private var cache: PlaintextCache
    /// Metadata by file name, as verified from disk (or just written): `nil` metadata
    /// for a file known to be absent, a `corrupt` failure for one that failed
    /// verification. The store owns its directory, so this stays true until restart;
    /// it spares listing and placeholders an X25519 operation per file per call.
    private var metadataIndex: [String: Result<TimelineMetadata?, StoreError>] = [:]
    /// Whether `metadataIndex` covers every file in the directory.
    private var metadataIndexComplete = false
    /// The directory's file names still to verify into the index, listed on first need.
    private var unindexedNames: [String]?

    /// The device-key subkeys this store uses, derived once at open.
    private struct Subkeys {
        let keybagMAC: SecureBytes
        let classWrap: SecureBytes
        let fileName: SecureBytes
        let wrongPasscodeTag: SecureBytes
        let passcodeTangle: SecureBytes
        let settingsMAC: SecureBytes

        init(_ key: DeviceKey) throws(StoreError) {
            keybagMAC = try key.subkey(.keybagMAC)
            classWrap = try key.subkey(.classWrap)
            fileName = try key.subkey(.fileName)
            wrongPasscodeTag = try key.subkey(.wrongPasscodeTag)
            passcodeTangle = try key.subkey(.passcodeTangle)
            settingsMAC = try key.subkey(.settingsMAC)
        }
    }

    private var keybagPath: String { "\(stateDirectory)/\(Keybag.fileName)" }

    /// Opens (or creates) the store in `stateDirectory`. Like a reboot: with a passcode
    /// set the state is `beforeFirstUnlock` and only class D is available.
    ///
    /// - Parameters:
    ///   - credentialsDirectory: `$CREDENTIALS_DIRECTORY`; its `device-key` is used when present.
    ///   - now: the current time (reserved for time-based recovery; nothing is due at open).
    public init(
        stateDirectory: String, credentialsDirectory: String?, configuration: StoreConfiguration = StoreConfiguration(),
        now: Date
    ) throws(StoreError) {
        self.stateDirectory = stateDirectory
        self.timelinesDirectory = "\(stateDirectory)/timelines"
        self.credentialsDirectory = credentialsDirectory
        self.configuration = configuration
        self.cache = PlaintextCache(limit: configuration.maxCachedTimelines)
        try FileSystem.makeDirectory(stateDirectory)
        try FileSystem.makeDirectory(timelinesDirectory)
        try Self.removeTemporaryFiles(in: stateDirectory)
        // The timelines directory's leftovers go when it is first listed for the index:
        // reading a directory of every stored timeline must not delay opening.
        let opened = try Self.openKeys(
            stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory, cost: configuration.kdfCost)
        deviceKey = opened.deviceKey
        subkeys = opened.subkeys
        keybag = opened.keybag
        lifecycle = opened.lifecycle
    }

    private static func openKeys(
        stateDirectory: String, credentialsDirectory: String?, cost: KDFCost
    ) throws(StoreError) -> (deviceKey: DeviceKey, subkeys: Subkeys, keybag: Keybag, lifecycle: KeyLifecycle) {
        let deviceKey = try DeviceKey.load(stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory)
        let subkeys = try Subkeys(deviceKey)
        let path = "\(stateDirectory)/\(Keybag.fileName)"
        let keybag: Keybag
        if let existing = try Keybag.load(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC) {
            keybag = existing
        } else {
            keybag = try Keybag.create(cost: cost, deviceWrapKey: subkeys.classWrap).0
            try keybag.save(stateDirectory: stateDirectory, macKey: subkeys.keybagMAC)
        }
        let deviceWrapped: [ProtectionClass] = keybag.passcodeSet ? [.none] : Keybag.order
        var pairs: [ProtectionClass: KeyPair] = [:]
        for c in deviceWrapped {
            do { pairs[c] = try keybag.unwrap(c, with: subkeys.classWrap) } catch { throw .reading(path, error) }
        }
        let lifecycle = KeyLifecycle(passcodeSet: keybag.passcodeSet, classD: pairs[.none]!, allKeysIfNoPasscode: pairs)
        return (deviceKey, subkeys, keybag, lifecycle)
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

    // MARK: Unlock and lock

    /// Unlocks with a passcode: `beginUnlock`, `derive` and `finishUnlock` in one call.
    public func unlock(passcode: SecureBytes, now: Date) throws(StoreError) {
        let derivation = try beginUnlock(now: now)
        try finishUnlock(try derivation.derive(passcode), now: now)
    }

    /// Checks that an attempt is allowed now and returns the derivation to run (off
    /// this thread if wished). Throws `tryAgainLater` while the delay runs.
    /// With no passcode set the derivation is trivial and `finishUnlock` always succeeds.
    public func beginUnlock(now: Date) throws(StoreError) -> PasscodeDerivation {
        guard keybag.passcodeSet else { return PasscodeDerivation(mode: .noPasscode) }
        if let wait = retryAfter(now: now) { throw .tryAgainLater(retryAfter: wait) }
        let tangle = try crypto { () throws(CryptoError) in try subkeys.passcodeTangle.copy() }
        return PasscodeDerivation(mode: .argon2id(salt: keybag.salt, cost: keybag.kdfCost, tangleKey: tangle))
    }

    /// Verifies a derived passcode by unwrapping the class secrets. Success releases A,
    /// B and C and resets the failure count; failure is counted and written durably
    /// before `wrongPasscode` is thrown (a repeat of the last wrong passcode is not
    /// counted again), and may crypto-erase the store (`wipeAfterFailedAttempts`).
    public func finishUnlock(_ derived: DerivedPasscode, now: Date) throws(StoreError) {
        guard keybag.passcodeSet else {
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
    public func lock(now: Date) {
        purge(lifecycle.lock(now: now, grace: configuration.classAGrace))
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
            new = PasscodeDerivation(mode: .argon2id(salt: salt, cost: configuration.kdfCost, tangleKey: tangle))
        }
        return PasscodeChange(basis: keybag.salt, current: current, new: new, newSalt: salt, newCost: configuration.kdfCost)
    }

    /// Applies a derived passcode change. Only the keybag is rewritten: the cost does
    /// not depend on the number of timelines. A wrong current passcode counts as a
    /// failed attempt (otherwise this would be a way around the delay) and throws
    /// `wrongPasscode`; a change planned before another one took effect throws
    /// `passcodeRequired` and is not counted.
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
        cache.removeAll()
        metadataIndex = [:]
        metadataIndexComplete = false
        unindexedNames = nil
        try FileSystem.remove(keybagPath)
        if case .stateFile(let path) = deviceKey.source { try FileSystem.remove(path) }
        try FileSystem.remove("\(stateDirectory)/\(SettingsFile.fileName)")
        try FileSystem.syncDirectory(stateDirectory)
        for name in try FileSystem.list(timelinesDirectory) {
            try FileSystem.remove("\(timelinesDirectory)/\(name)")
        }
        try FileSystem.syncDirectory(timelinesDirectory)
        let opened = try Self.openKeys(
            stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory, cost: configuration.kdfCost)
        deviceKey = opened.deviceKey
        subkeys = opened.subkeys
        keybag = opened.keybag
        lifecycle = opened.lifecycle
    }

    // MARK: Timelines

    /// The file name for a widget: a keyed hash of its id, never the id itself, so a
    /// hostile id cannot name a path and a directory listing reveals no widget.
    private func fileName(for widget: WidgetID) throws(StoreError) -> String {
        let digest = try crypto { () throws(CryptoError) in
            try KeyedHash.hash(Array(widget.description.utf8), key: subkeys.fileName, outputLength: 16)
        }
        return digest.withUnsafeBytes { Hex.encode($0) } + TimelineFile.fileExtension
    }

    /// Reads, parses and verifies a timeline file's header and metadata.
    /// `expected` nil accepts any widget whose own file name is `name`.
    private func readSealed(name: String, expected: WidgetID?) throws(StoreError) -> (TimelineFile.Sealed, TimelineMetadata)? {
        let path = "\(timelinesDirectory)/\(name)"
        guard let bytes = try FileSystem.readFile(path, limit: TimelineFile.maximumFileBytes) else { return nil }
        let sealed = try TimelineFile.parse(bytes, expected: expected, file: path)
        // A file renamed onto another widget's name is not that widget's.
        guard try fileName(for: sealed.header.widget) == name else { throw .corrupt(file: path, reason: .wrongWidget) }
        let metadata = try TimelineFile.openMetadata(sealed, classD: lifecycle.keyPair(.none)!, file: path)
        return (sealed, metadata)
    }

    /// The metadata for one file name, from the index or verified from disk.
    private func indexedMetadata(name: String, widget: WidgetID?) throws(StoreError) -> TimelineMetadata? {
        if let known = metadataIndex[name] { return try known.get() }
        if metadataIndexComplete { return nil }
        let result: Result<TimelineMetadata?, StoreError>
        do throws(StoreError) {
            result = .success(try readSealed(name: name, expected: widget)?.1)
        } catch {
            // Only a verdict on the file is remembered; an I/O error may pass.
            guard case .corrupt = error else { throw error }
            result = .failure(error)
        }
        metadataIndex[name] = result
        return try result.get()
    }

    /// Replaces a widget's timeline and returns its new generation. Needs only public
    /// keys, so every class is writable in every state. `placeholder` nil keeps the
    /// stored one. The body is cached (class B marked open), except class A while
    /// locked and any class whose key is not held.
    @discardableResult
    public func putTimeline(
        _ widget: WidgetID, protectionClass: ProtectionClass, family: String?, reloadDue: Date?, body: SecureBytes,
        placeholder: [UInt8]?
    ) throws(StoreError) -> UInt64 {
        guard body.count <= configuration.maxTimelineBytes else { throw .tooLarge(limit: configuration.maxTimelineBytes) }
        if let placeholder, placeholder.count > configuration.maxPlaceholderBytes {
            throw .tooLarge(limit: configuration.maxPlaceholderBytes)
        }
        if let family, family.utf8.count > TimelineFile.maximumFamilyBytes {
            throw .tooLarge(limit: TimelineFile.maximumFamilyBytes)
        }
        // A damaged previous file is simply replaced: the provider is rewriting it.
        let name = try fileName(for: widget)
        let previous = try? indexedMetadata(name: name, widget: widget)
        let metadata = TimelineMetadata(
            widget: widget, protectionClass: protectionClass, family: family,
            generation: (previous?.generation ?? 0) + 1, reloadDue: reloadDue,
            placeholder: placeholder ?? previous?.placeholder)
        let bytes = try crypto { () throws(CryptoError) in
            try TimelineFile.encode(
                metadata, body: body, classPublicKey: keybag.publicKey(protectionClass),
                classDPublicKey: keybag.publicKey(.none))
        }
        cache.remove(widget)
        metadataIndex[name] = nil
        do throws(StoreError) {
            try FileSystem.writeAtomically(directory: timelinesDirectory, name: name, bytes: bytes)
        } catch {
            reindexFromDisk(name: name, widget: widget)
            throw error
        }
        metadataIndex[name] = .success(metadata)
        if shouldCacheWrite(protectionClass) {
            let copy = try crypto { () throws(CryptoError) in try body.copy() }
            cache.insert(
                widget, body: copy, protectionClass: protectionClass, generation: metadata.generation,
                isOpen: protectionClass == .completeUnlessOpen)
        }
        return metadata.generation
    }

    /// One timeline to store with `putTimelines(_:)`: the arguments of `putTimeline`.
    public struct TimelineWrite {
        public let widget: WidgetID
        public let protectionClass: ProtectionClass
        public let family: String?
        public let reloadDue: Date?
        public let body: SecureBytes
        public let placeholder: [UInt8]?

        /// A write; `placeholder` nil keeps the stored one.
        public init(
            widget: WidgetID, protectionClass: ProtectionClass, family: String?, reloadDue: Date?, body: SecureBytes,
            placeholder: [UInt8]?
        ) {
            self.widget = widget
            self.protectionClass = protectionClass
            self.family = family
            self.reloadDue = reloadDue
            self.body = body
            self.placeholder = placeholder
        }
    }

    /// Stores several timelines with one group commit: each succeeds or fails as
    /// `putTimeline` would, in order (a widget written twice gets two generations and
    /// keeps the second), but the files are synced together and the directory once.
    /// Returns each write's generation or error.
    public func putTimelines(_ writes: [TimelineWrite]) -> [Result<UInt64, StoreError>] {
        var results = [Result<UInt64, StoreError>?](repeating: nil, count: writes.count)
        var staged: [(index: Int, name: String, metadata: TimelineMetadata, bytes: [UInt8])] = []
        for (index, write) in writes.enumerated() {
            do throws(StoreError) {
                let (name, metadata, bytes) = try sealForWrite(write)
                // Later writes of the same widget in this batch build on this generation.
                metadataIndex[name] = .success(metadata)
                staged.append((index, name, metadata, bytes))
            } catch {
                results[index] = .failure(error)
            }
        }
        let outcomes: [StoreError?]
        do throws(StoreError) {
            outcomes = try FileSystem.writeAtomically(
                directory: timelinesDirectory, files: staged.map { ($0.name, $0.bytes) })
        } catch {
            outcomes = Array(repeating: error, count: staged.count)
        }
        for (slot, item) in staged.enumerated() {
            if let error = outcomes[slot] {
                reindexFromDisk(name: item.name, widget: writes[item.index].widget)
                results[item.index] = .failure(error)
                continue
            }
            metadataIndex[item.name] = .success(item.metadata)
            let write = writes[item.index]
            if shouldCacheWrite(write.protectionClass), let copy = try? write.body.copy() {
                cache.insert(
                    write.widget, body: copy, protectionClass: write.protectionClass, generation: item.metadata.generation,
                    isOpen: write.protectionClass == .completeUnlessOpen)
            }
            results[item.index] = .success(item.metadata.generation)
        }
        return results.map { $0! }
    }

    /// Checks one write against the limits and seals its file; drops the widget's
    /// cached body, which the write replaces.
    private func sealForWrite(_ write: TimelineWrite) throws(StoreError) -> (String, TimelineMetadata, [UInt8]) {
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
        let bytes = try crypto { () throws(CryptoError) in
            try TimelineFile.encode(
                metadata, body: write.body, classPublicKey: keybag.publicKey(write.protectionClass),
                classDPublicKey: keybag.publicKey(.none))
        }
        cache.remove(write.widget)
        return (name, metadata, bytes)
    }

    /// After a failed write (a full disk): the previous file is still in place, or the
    /// new one if only the directory sync failed. Index whichever is there; dropping
    /// the entry instead would report the widget missing once the index is complete,
    /// while its file is intact on disk (CrashSafetyTests).
    private func reindexFromDisk(name: String, widget: WidgetID) {
        do throws(StoreError) {
            metadataIndex[name] = .success(try readSealed(name: name, expected: widget)?.1)
        } catch {
            // An I/O error may pass: only a verdict on the file is remembered.
            metadataIndex[name] = nil
            if case .corrupt = error { metadataIndex[name] = .failure(error) }
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
        let name = try fileName(for: widget)
        let path = "\(timelinesDirectory)/\(name)"
        // Always verified from disk: the metadata index is no proof of the body.
        guard let (sealed, metadata) = try readSealed(name: name, expected: widget) else { throw .widgetNotFound }
        guard let pair = lifecycle.keyPair(metadata.protectionClass) else { throw .protectedDataUnavailable }
        let body = try TimelineFile.openBody(sealed, classKey: pair, file: path)
        let copy = try crypto { () throws(CryptoError) in try body.copy() }
        cache.insert(
            widget, body: body, protectionClass: metadata.protectionClass, generation: metadata.generation,
            isOpen: metadata.protectionClass == .completeUnlessOpen)
        return copy
    }

    /// A widget's metadata and placeholder, in every state; `nil` if none is stored.
    ///
    /// Verified from disk the first time, then served from memory (the store is the
    /// only writer of its directory).
    public func metadata(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata? {
        try indexedMetadata(name: try fileName(for: widget), widget: widget)
    }

    /// Every stored timeline's metadata, sorted by widget id, in every state.
    ///
    /// Files that fail verification are left out (each one throws its typed
    /// `corrupt` error from `metadata(_:)` and `readBody`), so one damaged file does
    /// not hide every other widget.
    public func listTimelines() throws(StoreError) -> [TimelineMetadata] {
        while try indexNextTimelines(limit: .max) != nil {}
        return metadataIndex.values.compactMap { try? $0.get() }.sorted { $0.widget < $1.widget }
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
        }
        unindexedNames = nil
        defer {
            if names.isEmpty { metadataIndexComplete = true } else { unindexedNames = names }
        }
        var found: [TimelineMetadata] = []
        var verified = 0
        while verified < limit, let name = names.last {
            verified += 1
            if metadataIndex[name] == nil {
                do throws(StoreError) {
                    if let metadata = try indexedMetadata(name: name, widget: nil) { found.append(metadata) }
                } catch {
                    // A damaged file is recorded in the index and skipped; anything else is a real failure.
                    guard case .corrupt = error else { throw error }
                }
            }
            names.removeLast()
        }
        return found
    }

    /// Closes a widget's timeline: drops (and zeroes) its cached body and "open" mark.
    public func closeTimeline(_ widget: WidgetID) {
        cache.remove(widget)
    }

    /// Deletes a widget's timeline durably; `widgetNotFound` if there is none.
    public func deleteTimeline(_ widget: WidgetID) throws(StoreError) {
        cache.remove(widget)
        let name = try fileName(for: widget)
        metadataIndex[name] = nil
        guard try FileSystem.remove("\(timelinesDirectory)/\(name)") else {
            metadataIndex[name] = .success(nil)
            throw .widgetNotFound
        }
        try FileSystem.syncDirectory(timelinesDirectory)
        metadataIndex[name] = .success(nil)
    }

    /// Whether a widget's plaintext is cached (for tests of the purge rules).
    func isCached(_ widget: WidgetID) -> Bool { cache.contains(widget) }

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
