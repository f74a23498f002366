import Glibc
import SecureMemory
import WidgetCrypto
import WidgetdPOSIX

/// Why a file failed verification. Never says anything about its plaintext.
package enum CorruptionReason: Sendable, Equatable, CustomStringConvertible {
    /// A MAC, AEAD tag or sealed box did not verify: altered, moved between classes, or a foreign key.
    case authenticationFailure
    /// The file ends before its format says it should.
    case truncated
    /// The file does not start with the expected magic bytes.
    case badMagic
    /// A format version this build does not read.
    case unsupportedVersion
    /// The file belongs to another widget (copied or renamed over this one).
    case wrongWidget
    /// The file's class is unknown or disagrees with its authenticated metadata.
    case wrongClass
    /// A length or field is out of range, or bytes follow the end of the format.
    case malformed
    /// The file is sealed to class keys this keybag does not hold: the keybag is older
    /// than the file (restored from a backup), and opens nothing written after it.
    /// Thrown for a body only; the file's metadata stays readable.
    case unknownKeyGeneration
    /// The file is older than the generation the catalog records for its widget
    /// (restored from a backup): refused, its body never served. Thrown for a body only.
    case rolledBack

    package var description: String {
        switch self {
        case .authenticationFailure: "authentication failed (altered, or not made with this device key)"
        case .truncated: "truncated"
        case .badMagic: "not a widgetd file (bad magic)"
        case .unsupportedVersion: "unsupported format version"
        case .wrongWidget: "belongs to another widget"
        case .wrongClass: "unknown or inconsistent protection class"
        case .malformed: "malformed"
        case .unknownKeyGeneration: "sealed to class keys the keybag does not hold (a keybag restored from before the file?)"
        case .rolledBack: "rolled back: older than the generation the catalog records (a file restored from a backup?)"
        }
    }
}

/// A problem with the device key.
package enum DeviceKeyProblem: Sendable, Equatable, CustomStringConvertible {
    /// The key file can be read by its group or by others (or is not owned by us).
    case insecurePermissions(path: String)
    /// The key file does not hold exactly 32 bytes.
    case wrongSize(path: String, bytes: Int)
    /// The key file is missing while a keybag made with it exists.
    case missing(path: String)
    /// The injected source (a TPM) could not give or destroy the key: its own text,
    /// which names the device and the refusal and never the key.
    case sourceFailed(source: DeviceKeyKind, reason: String)

    package var description: String {
        switch self {
        case .insecurePermissions(let path):
            "device key \(path) is readable by group or others, or owned by another user; fix with chmod 600 / chown, or remove it only if no data must survive"
        case .wrongSize(let path, let bytes):
            "device key \(path) holds \(bytes) bytes; it must hold exactly 32 (e.g. head -c 32 /dev/urandom)"
        case .missing(let path):
            "device key \(path) is missing while the keybag made with it exists; restore it (nothing was changed), or erase everything with widgetd --start-over after removing the keybag too"
        case .sourceFailed(let source, let reason):
            "the \(source.rawValue) device key cannot be used: \(reason)"
        }
    }
}

/// Why the store refused an entry of its state directory without reading it.
///
/// Whoever can write the state directory could plant a FIFO (an `open` that never
/// returns), a link to a file elsewhere, or a file of another user; the store opens
/// nothing of the kind, and trusts no directory that others may write.
package enum UnsafeEntryReason: Sendable, Equatable, CustomStringConvertible {
    /// A symbolic link: the store never follows one inside its state directory.
    case symbolicLink
    /// Not a regular file (a FIFO, socket, device or directory).
    case notRegularFile
    /// Not a directory where the store keeps one.
    case notDirectory
    /// Owned by another user than the daemon's.
    case foreignOwner(uid: UInt32)
    /// A directory that its group or others may write (`mode` is its permission bits).
    case writableByOthers(mode: UInt32)

    package var description: String {
        switch self {
        case .symbolicLink: "is a symbolic link, which widgetd never follows in its state directory"
        case .notRegularFile: "is not a regular file (a FIFO, socket, device or directory)"
        case .notDirectory: "is not a directory"
        case .foreignOwner(let uid): "is owned by uid \(uid), not by the daemon's uid \(geteuid())"
        case .writableByOthers(let mode):
            "is writable by its group or others (mode \(String(mode, radix: 8))); fix with chmod go-w"
        }
    }
}

/// Everything `TimelineStore` can throw. No case carries key bytes, passcodes or content.
///
/// The face of the store and of its timelines part: the keys part's `KeyError` and the
/// ledger part's `LedgerError` are mapped onto it in one place each (below), and a case
/// that one of them stands for takes its text from there.
package enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The widget's class key is not available in the current state.
    case protectedDataUnavailable
    /// No timeline is stored for the widget.
    case widgetNotFound
    /// A body, placeholder or family exceeds its configured limit (bytes), or a write
    /// would take its provider's stored files past `ProviderQuota.maxBytes`.
    case tooLarge(limit: Int)
    /// A write would take its provider past `ProviderQuota.maxWidgets` stored widgets.
    case tooManyWidgets(limit: Int)
    /// The passcode is wrong; the attempt was counted (and written durably) first.
    case wrongPasscode(failedAttempts: Int, retryAfter: Double?)
    /// Too many failed attempts: the next one is allowed in `retryAfter` seconds.
    case tryAgainLater(retryAfter: Double)
    /// The operation needs the current passcode (missing, e.g. changing without it).
    case passcodeRequired
    /// The passcode was right, but a Lock arrived while it was being checked, and a Lock
    /// wins: the device stays locked. Not a failed attempt; unlock again.
    case unlockInterrupted
    /// Removing a passcode, or unlocking with one, when none is set.
    case noPasscodeSet
    /// The store was crypto-erased by this call (after too many failed attempts).
    case wiped
    /// A file failed verification; its contents were not used.
    case corrupt(file: String, reason: CorruptionReason)
    /// The device key cannot be used.
    case deviceKey(DeviceKeyProblem)
    /// The passcode verifier (the TPM) could not verify or enroll a passcode: its blob is
    /// another TPM's or from before a wipe, or the TPM failed. Its own text, which names
    /// the refusal and never a secret. Not a wrong passcode: nothing was counted.
    case passcodeVerifierFailed(reason: String)
    /// An entry of the state directory is not what the store keeps there; it was not opened.
    case unsafeEntry(path: String, reason: UnsafeEntryReason)
    /// The keybag is missing while the timelines or journaled writes it made readable
    /// remain (`remaining` says which): nothing was changed. Restore it, or start over.
    case keybagMissing(path: String, remaining: String)
    /// The catalog (`GenerationLedger`) is missing beside a keybag that was made with one: removed
    /// to let old timeline files pass. Restore it, rebuild it from the timeline files
    /// with `widgetd --start-over` and the passcode, or wipe the state directory.
    case ledgerMissing(path: String)
    /// The keybag or the catalog `file` is older than the rollback counter says it must
    /// be (`RollbackAnchor`, DESIGN §9): restored from a backup. It carries the anchor
    /// `found` where `expected` was due; when both files are behind the counter, `file`
    /// names both ("KEYBAG or CATALOG": either may be the copy restored). A start error:
    /// nothing is served.
    case rolledBack(file: String, found: UInt64, expected: UInt64)
    /// The rollback counter (`RollbackCounter`, a TPM NV counter) failed or disagrees with
    /// the state directory (`reason`, which names no secret). A start error at open, never
    /// a fall back to running without it.
    case rollbackCounter(reason: String)
    /// Another process (a second widgetd) holds the state directory `path` (`StateDirectoryLock`).
    case stateDirectoryInUse(path: String)
    /// A system call failed: its operation, the file, and the system's `Errno`.
    case io(operation: String, path: String, errno: Errno)
    /// Secure memory (`sodium_malloc`) is exhausted.
    case outOfSecureMemory
    /// libsodium failed in a way that is neither tampering nor exhaustion (e.g. Argon2id could not get its memory).
    case cryptoFailure(String)

    package var description: String {
        switch self {
        case .protectedDataUnavailable: "protected data unavailable: the class key is not released in this state"
        case .widgetNotFound: "no timeline is stored for this widget"
        case .tooLarge(let limit): "too large: the limit is \(limit) bytes"
        case .tooManyWidgets(let limit): "too many widgets: the provider may store \(limit)"
        case .wrongPasscode(let n, let retry): KeyError.wrongPasscode(failedAttempts: n, retryAfter: retry).description
        case .tryAgainLater(let retry): KeyError.tryAgainLater(retryAfter: retry).description
        case .passcodeRequired: KeyError.passcodeRequired.description
        case .unlockInterrupted: KeyError.unlockInterrupted.description
        case .noPasscodeSet: KeyError.noPasscodeSet.description
        case .wiped: "the store was erased after too many failed attempts"
        case .corrupt(let file, let reason): LedgerError.corrupt(file: file, reason: reason).description
        case .deviceKey(let problem): KeyError.deviceKey(problem).description
        case .passcodeVerifierFailed(let reason): KeyError.passcodeVerifierFailed(reason: reason).description
        case .unsafeEntry(let path, let reason): LedgerError.unsafeEntry(path: path, reason: reason).description
        case .ledgerMissing(let path): LedgerError.ledgerMissing(path: path).description
        case .rolledBack(let file, let found, let expected):
            AnchorError.rolledBack(file: file, found: found, expected: expected).description
        case .rollbackCounter(let reason): AnchorError.rollbackCounter(reason: reason).description
        case .keybagMissing(let path, let remaining):
            "the keybag \(path) is missing while \(remaining) \(remaining.hasPrefix("1 ") && !remaining.contains(" and ") ? "remains" : "remain"), which cannot be read without it; nothing was changed. Restore the keybag from a backup, or erase them and start over with widgetd --start-over"
        case .stateDirectoryInUse(let path): LedgerError.stateDirectoryInUse(path: path).description
        case .io(let operation, let path, let e): LedgerError.io(operation: operation, path: path, errno: e).description
        case .outOfSecureMemory: SecureMemoryError.outOfSecureMemory.description
        case .cryptoFailure(let what): what
        }
    }

    /// The ledger part's error at the facade: case for case.
    init(_ error: LedgerError) {
        switch error {
        case .corrupt(let file, let reason): self = .corrupt(file: file, reason: reason)
        case .unsafeEntry(let path, let reason): self = .unsafeEntry(path: path, reason: reason)
        case .ledgerMissing(let path): self = .ledgerMissing(path: path)
        case .stateDirectoryInUse(let path): self = .stateDirectoryInUse(path: path)
        case .io(let operation, let path, let errno): self = .io(operation: operation, path: path, errno: errno)
        case .crypto(let error): self.init(error)
        case .anchor(let error): self.init(error)
        }
    }

    /// The keys part's error at the facade: case for case; what the ledger threw for it
    /// as the ledger's is mapped, and an injected source's passes through.
    init(_ error: KeyError) {
        switch error {
        case .wrongPasscode(let n, let retry): self = .wrongPasscode(failedAttempts: n, retryAfter: retry)
        case .tryAgainLater(let retry): self = .tryAgainLater(retryAfter: retry)
        case .passcodeRequired: self = .passcodeRequired
        case .unlockInterrupted: self = .unlockInterrupted
        case .noPasscodeSet: self = .noPasscodeSet
        case .deviceKey(let problem): self = .deviceKey(problem)
        case .passcodeVerifierFailed(let reason): self = .passcodeVerifierFailed(reason: reason)
        case .anchor(let error): self.init(error)
        case .ledger(let error): self.init(error)
        case .source(let error): self = error
        case .crypto(let error): self.init(error)
        }
    }

    /// Maps the rollback anchor's error, case for case.
    init(_ error: AnchorError) {
        switch error {
        case .rolledBack(let file, let found, let expected): self = .rolledBack(file: file, found: found, expected: expected)
        case .rollbackCounter(let reason): self = .rollbackCounter(reason: reason)
        case .counter(let error): self = error
        }
    }

    /// Maps a crypto failure outside a file (key derivation, allocation) to a store error.
    init(_ error: CryptoError) {
        switch error {
        case .outOfSecureMemory: self = .outOfSecureMemory
        case .authenticationFailure, .invalidLength, .initializationFailed, .operationFailed:
            self = .cryptoFailure(error.description)
        }
    }
}

/// Runs a call of the rollback anchor from the facade, its error mapped onto `StoreError`.
@inline(__always) @discardableResult
func fromAnchor<R>(_ body: () throws(AnchorError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}

/// Runs a call of the ledger part from the facade, its error mapped onto `StoreError`.
@inline(__always) @discardableResult
func fromLedger<R>(_ body: () throws(LedgerError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}

/// Runs a call of the keys part from the facade, its error mapped onto `StoreError`.
@inline(__always) @discardableResult
func fromKeys<R>(_ body: () throws(KeyError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}
