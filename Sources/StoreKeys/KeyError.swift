import StoreAnchor
import StoreFiles
import WidgetCrypto

/// Everything the keys part throws at its face (`KeyCustody` and what it is built
/// from), and what an injected source (`DeviceKeySource`, `PasscodeVerifier`) throws
/// into it. No case carries key bytes or passcodes. `TimelineStore` maps it onto
/// `StoreError` in one place (`StoreError.init(_: KeyError)`), with these texts.
package enum KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The passcode is wrong; the attempt was counted (and written durably) first.
    case wrongPasscode(failedAttempts: Int, retryAfter: Double?)
    /// Too many failed attempts: the next one is allowed in `retryAfter` seconds.
    case tryAgainLater(retryAfter: Double)
    /// The operation needs the current passcode (missing, e.g. changing without it).
    case passcodeRequired
    /// The passcode was right, but a Lock arrived while it was being checked: a Lock wins.
    case unlockInterrupted
    /// Removing a passcode, or unlocking with one, when none is set.
    case noPasscodeSet
    /// The device key cannot be used.
    case deviceKey(DeviceKeyProblem)
    /// The passcode verifier (the TPM) could not verify or enroll a passcode (not a
    /// wrong passcode: nothing was counted). Its own text, which names no secret.
    case passcodeVerifierFailed(reason: String)
    /// The rollback anchor refused a file or could not count (`RollbackAnchor`).
    case anchor(AnchorError)
    /// What the files threw for this one: the keys' files are read and written through
    /// StoreFiles' `FileSystem`, the keybag's format refusals are its `corrupt`, and the
    /// ledger is saved beside a keybag through the closures the store hands in.
    case file(FileError)
    /// libsodium or secure memory failed (key derivation, allocation).
    case crypto(CryptoError)

    package var description: String {
        switch self {
        case .wrongPasscode(let n, let retry):
            "wrong passcode (\(n) failed attempt\(n == 1 ? "" : "s"))" + (retry.map { "; try again in \(Int($0.rounded(.up))) s" } ?? "")
        case .tryAgainLater(let retry): "too many failed attempts; try again in \(Int(retry.rounded(.up))) s"
        case .passcodeRequired: "the current passcode is required"
        case .unlockInterrupted: "the passcode was right, but the device was locked while it was being checked; unlock again"
        case .noPasscodeSet: "no passcode is set"
        case .deviceKey(let problem): problem.description
        case .passcodeVerifierFailed(let reason): "the passcode cannot be verified: \(reason)"
        case .anchor(let error): error.description
        case .file(let error): error.description
        case .crypto(let error): error.description
        }
    }

    /// Maps a crypto failure while reading `file` as every file does: authentication
    /// failures become corruption.
    package static func reading(_ file: String, _ error: CryptoError) -> KeyError {
        .file(.reading(file, error))
    }
}

/// Runs a file system call from the keys, its error carried as `KeyError.file`.
@inline(__always) @discardableResult
package func throughFiles<R>(_ body: () throws(FileError) -> R) throws(KeyError) -> R {
    do { return try body() } catch { throw .file(error) }
}

extension KeyError {
    /// What an anchored save of the keys part threw, as a key error.
    package init(_ error: AnchoredSaveError<KeyError>) {
        switch error {
        case .write(let own): self = own
        case .anchor(let anchor): self = .anchor(anchor)
        }
    }
}

/// Runs an anchored save (`RollbackAnchor.anchor`) from the keys part.
@inline(__always)
package func anchoringKeys<R>(_ body: () throws(AnchoredSaveError<KeyError>) -> R) throws(KeyError) -> R {
    do { return try body() } catch { throw KeyError(error) }
}

extension KeyError: CarriesCryptoError {
    package init(_ error: CryptoError) { self = .crypto(error) }
}
