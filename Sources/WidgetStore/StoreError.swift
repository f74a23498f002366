import Glibc
import SecureMemory
import StoreAnchor
import StoreFiles
import StoreKeys
import WidgetCrypto
import WidgetdPOSIX

/// Everything `TimelineStore` can throw. No case carries key bytes, passcodes or content.
///
/// The face of the store and of its timelines: the keys' `KeyError`, the files'
/// `FileError` and the anchor's `AnchorError` are mapped onto it in one place each
/// (below), and a case that one of them stands for takes its text from there.
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
        case .corrupt(let file, let reason): FileError.corrupt(file: file, reason: reason).description
        case .deviceKey(let problem): KeyError.deviceKey(problem).description
        case .passcodeVerifierFailed(let reason): KeyError.passcodeVerifierFailed(reason: reason).description
        case .unsafeEntry(let path, let reason): FileError.unsafeEntry(path: path, reason: reason).description
        case .ledgerMissing(let path): FileError.ledgerMissing(path: path).description
        case .rolledBack(let file, let found, let expected):
            AnchorError.rolledBack(file: file, found: found, expected: expected).description
        case .rollbackCounter(let reason): AnchorError.rollbackCounter(reason: reason).description
        case .keybagMissing(let path, let remaining):
            "the keybag \(path) is missing while \(remaining) \(remaining.hasPrefix("1 ") && !remaining.contains(" and ") ? "remains" : "remain"), which cannot be read without it; nothing was changed. Restore the keybag from a backup, or erase them and start over with widgetd --start-over"
        case .stateDirectoryInUse(let path): FileError.stateDirectoryInUse(path: path).description
        case .io(let operation, let path, let e): FileError.io(operation: operation, path: path, errno: e).description
        case .outOfSecureMemory: SecureMemoryError.outOfSecureMemory.description
        case .cryptoFailure(let what): what
        }
    }

    /// The files' error at the facade: case for case.
    init(_ error: FileError) {
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

    /// The keys' error at the facade: case for case; what the files threw for it is
    /// mapped as the files' is.
    package init(_ error: KeyError) {
        switch error {
        case .wrongPasscode(let n, let retry): self = .wrongPasscode(failedAttempts: n, retryAfter: retry)
        case .tryAgainLater(let retry): self = .tryAgainLater(retryAfter: retry)
        case .passcodeRequired: self = .passcodeRequired
        case .unlockInterrupted: self = .unlockInterrupted
        case .noPasscodeSet: self = .noPasscodeSet
        case .deviceKey(let problem): self = .deviceKey(problem)
        case .passcodeVerifierFailed(let reason): self = .passcodeVerifierFailed(reason: reason)
        case .anchor(let error): self.init(error)
        case .file(let error): self.init(error)
        case .crypto(let error): self.init(error)
        }
    }

    /// Maps the rollback anchor's error, case for case.
    init(_ error: AnchorError) {
        switch error {
        case .rolledBack(let file, let found, let expected): self = .rolledBack(file: file, found: found, expected: expected)
        case .rollbackCounter(let reason): self = .rollbackCounter(reason: reason)
        }
    }

    /// Maps a crypto failure outside a file (key derivation, allocation) to a store error.
    package init(_ error: CryptoError) {
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

/// Runs a call of the files or the ledger from the facade, its error mapped onto `StoreError`.
@inline(__always) @discardableResult
func fromFiles<R>(_ body: () throws(FileError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}

/// Runs a call of the keys from the facade, its error mapped onto `StoreError`.
@inline(__always) @discardableResult
func fromKeys<R>(_ body: () throws(KeyError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}

extension StoreError: CarriesCryptoError {}

@inline(__always)
func crypto<R>(_ body: () throws(CryptoError) -> R) throws(StoreError) -> R {
    try StoreError.crypto(body)
}

@inline(__always)
func secureMemory<R>(_ body: () throws(SecureMemoryError) -> R) throws(StoreError) -> R {
    try StoreError.secureMemory(body)
}
