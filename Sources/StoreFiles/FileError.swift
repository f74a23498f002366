import SecureMemory
import StoreAnchor
import WidgetCrypto
import WidgetdPOSIX

/// What the store's files throw: the file system calls (StoreFiles), and on them the
/// timeline file format, the journal and the generation ledger (StoreLedger) and the
/// keybag's reads and writes (StoreKeys, as `KeyError.file`).
/// No case carries key bytes or content. `TimelineStore` maps it onto `StoreError`
/// in one place (`StoreError.init(_: FileError)`), case for case, with these texts.
package enum FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file failed verification; its contents were not used.
    case corrupt(file: String, reason: CorruptionReason)
    /// An entry of the state directory is not what the store keeps there; it was not opened.
    case unsafeEntry(path: String, reason: UnsafeEntryReason)
    /// A part of the catalog is missing beside a head (or a keybag) that names it.
    case ledgerMissing(path: String)
    /// Another process (a second widgetd) holds the state directory `path` (`StateDirectoryLock`).
    case stateDirectoryInUse(path: String)
    /// A system call failed: its operation, the file, and the system's `Errno`.
    case io(operation: String, path: String, errno: Errno)
    /// libsodium or secure memory failed outside a file's verification.
    case crypto(CryptoError)
    /// The rollback anchor (the part below the ledger and the keys) could not count an
    /// anchored save, or refused a file.
    case anchor(AnchorError)

    package var description: String {
        switch self {
        case .corrupt(let file, let reason): "\(file): \(reason)"
        case .unsafeEntry(let path, let reason): "refused \(path): it \(reason)"
        case .ledgerMissing(let path):
            "\(path) is missing beside the keybag: timeline files could be rolled back unnoticed; nothing is served. Restore it, rebuild it from the timeline files with widgetd --start-over (the passcode is then asked at the first unlock), or wipe"
        case .stateDirectoryInUse(let path): "the state directory \(path) is in use by another widgetd process"
        case .io(let operation, let path, let e): "\(operation) \(path): \(e)"
        case .crypto(let error): error.description
        case .anchor(let error): error.description
        }
    }

    /// A failed system call about `path`: its operation and errno, as `io`.
    package init(_ error: SystemError, path: String) {
        self = .io(operation: error.operation, path: path, errno: error.errno)
    }

    /// What an anchored save threw: the ledger's own failure as itself, the anchor's as `anchor`.
    package init(anchoring error: AnchoredSaveError<FileError>) {
        switch error {
        case .write(let own): self = own
        case .anchor(let anchor): self = .anchor(anchor)
        }
    }

    /// Maps a crypto failure while reading `file`: authentication failures become corruption.
    package static func reading(_ file: String, _ error: CryptoError) -> FileError {
        switch error {
        case .authenticationFailure, .invalidLength: .corrupt(file: file, reason: .authenticationFailure)
        case .outOfSecureMemory, .initializationFailed, .operationFailed: .crypto(error)
        }
    }
}

/// Runs an anchored save (`RollbackAnchor.anchor`) of a file: see
/// `FileError.init(anchoring:)`.
@inline(__always)
package func anchoring<R>(_ body: () throws(AnchoredSaveError<FileError>) -> R) throws(FileError) -> R {
    do { return try body() } catch { throw FileError(anchoring: error) }
}
