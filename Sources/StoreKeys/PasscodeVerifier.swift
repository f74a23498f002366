import SecureMemory
import WidgetCrypto

/// Where passcode attempts are verified beyond the state directory's reach, injected
/// into `TimelineStore` like its `DeviceKeySource`: none in software mode (the keybag's
/// unwrap alone decides), the TPM in tpm2 mode (DESIGN §9).
///
/// When a passcode is set or changed the store asks it to `enroll` the passcode's key
/// (Argon2id tangled with the device key): it makes a fresh random secret and keeps it
/// so that only that key releases it, and returns the blob to store in the keybag. The
/// key that wraps the class secrets is then a keyed hash of both (`entangle`), so the
/// files alone (even with the device key) cannot test a guess: each guess must go
/// through the verifier, which counts the wrong ones where no file restore reaches.
///
/// Threading: called off the store's thread, in the derivation that also runs
/// Argon2id (`PasscodeDerivation.derive`); an implementation locks what it shares.
package protocol PasscodeVerifier: Sendable {
    /// What counts the attempts it verifies (`GetStatus.protection.attempts`).
    var counting: AttemptCounting { get }

    /// A fresh secret for a new passcode, and the blob that releases it only to
    /// `passcodeKey` (not secret: it is stored in the keybag).
    func enroll(passcodeKey: SecureBytes) throws(KeyError) -> (secret: SecureBytes, blob: [UInt8])

    /// What `blob` says of the attempt whose passcode key is `passcodeKey`. A blob that
    /// cannot be opened whatever the passcode (another TPM's, from before a wipe) throws:
    /// it proves nothing about the passcode and is never counted as a wrong one.
    func open(_ blob: [UInt8], passcodeKey: SecureBytes) throws(KeyError) -> PasscodeVerdict

    /// Seconds until it takes an attempt again (a TPM in dictionary-attack lockout), or
    /// `nil` if it would now. Asked without a passcode, so that `GetStatus.retryAfter`
    /// shows the wait before anyone types one; a verifier that cannot tell says `nil`
    /// (the attempt then answers `TryAgainLater` itself).
    func lockoutWait() -> Double?
}

extension PasscodeVerifier {
    /// No lockout of its own.
    package func lockoutWait() -> Double? { nil }
}

/// A verifier's answer to one attempt.
package enum PasscodeVerdict {
    /// The right passcode: the secret `enroll` made for it.
    case right(SecureBytes)
    /// A wrong passcode, counted by the verifier (the TPM's dictionary-attack protection).
    case wrong
    /// Too many wrong passcodes: the verifier refuses every attempt, the right one too,
    /// for about `retryAfter` seconds (`nil` when it cannot say). Not a wrong passcode.
    case lockedOut(retryAfter: Double?)
}

/// What counts failed passcode attempts, as `GetStatus.protection.attempts` names it.
package enum AttemptCounting: String, Sendable, Equatable {
    /// The keybag: a restored copy resets the count.
    case software
    /// The TPM's dictionary-attack protection: no file restore reaches it.
    case tpm2
}

extension PasscodeVerdict {
    /// The wait reported for a lockout whose length the verifier cannot read: the
    /// longest step of widgetd's own schedule.
    package static let unknownLockoutWait = FailedAttemptPolicy.delay(afterFailures: .max)
}

/// The key that unwraps the class secrets of a verified passcode: keyed BLAKE2b of the
/// passcode key under the verifier's secret, so it needs both the passcode and what only
/// the verifier releases.
package func entangle(_ passcodeKey: SecureBytes, with secret: SecureBytes) throws(KeyError) -> SecureBytes {
    try KeyError.crypto { () throws(CryptoError) in try KeyedHash.hash(passcodeKey, key: secret) }
}
