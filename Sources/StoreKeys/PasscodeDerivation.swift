import SecureMemory
import WidgetCrypto

/// The slow half of an unlock (Argon2id, about 100 ms, and in tpm2 mode the TPM's
/// verdict), detached from the store so that the daemon can run it off its event-loop
/// thread.
///
/// Obtained from `TimelineStore.beginUnlock(now:lockEpoch:)`, which has already checked the
/// failed-attempt delay. It holds a copy of the passcode-tangle subkey of the device
/// key (in secure memory), the keybag's salt and cost, the lock epoch the unlock
/// arrived in, and what the `PasscodeVerifier` is asked, if there is one; it touches no
/// store state.
package struct PasscodeDerivation: @unchecked Sendable {
    package enum Mode {
        /// No passcode is set: nothing to derive, the unlock succeeds unless a lock overtakes it.
        case noPasscode
        /// Argon2id with the keybag's salt and cost, then keyed BLAKE2b under the tangle key.
        case argon2id(salt: [UInt8], cost: KDFCost, tangleKey: SecureBytes)
    }

    /// What the passcode verifier does with the derived key.
    package enum Verification {
        /// Opens the keybag's blob (an unlock, or the current passcode of a change). The
        /// last wrong passcode (its tag under `tagKey` is `lastWrongTag`) is not sent:
        /// it is known wrong, and the repeat must not cost a count in the TPM either.
        case open(
            blob: [UInt8], verifier: any PasscodeVerifier, tagKey: SecureBytes, lastWrongTag: [UInt8]?)
        /// Enrolls a new passcode: a fresh secret, sealed to it.
        case enroll(any PasscodeVerifier)
    }

    package let mode: Mode
    /// When the unlock arrived, so that a Lock after it wins (`KeyError.unlockInterrupted`).
    package let lockEpoch: LockEpoch
    /// `nil`: no verifier, the keybag's unwrap alone decides.
    package var verification: Verification? = nil

    /// Derives the passcode key: `BLAKE2b(key: tangle(deviceKey), Argon2id(passcode, salt))`;
    /// with a verifier, keyed again under the secret it releases (`entangle`).
    ///
    /// Safe to call from any thread. The passcode is not retained. A verifier in lockout
    /// throws `tryAgainLater`, never a wrong passcode.
    package func derive(_ passcode: SecureBytes) throws(KeyError) -> DerivedPasscode {
        switch mode {
        case .noPasscode:
            return DerivedPasscode(key: nil, salt: nil, lockEpoch: lockEpoch)
        case .argon2id(let salt, let cost, let tangleKey):
            let key = try KeyError.crypto { () throws(CryptoError) in
                let stretched = try PasswordHash.derive(passcode: passcode, salt: salt, cost: cost)
                return try KeyedHash.hash(stretched, key: tangleKey)
            }
            switch verification {
            case nil:
                return DerivedPasscode(key: key, salt: salt, lockEpoch: lockEpoch)
            case .enroll(let verifier):
                let (secret, blob) = try verifier.enroll(passcodeKey: key)
                return DerivedPasscode(
                    key: try entangle(key, with: secret), salt: salt, lockEpoch: lockEpoch, verdict: .verified,
                    tangleBlob: blob)
            case .open(let blob, let verifier, let tagKey, let lastWrongTag):
                if let lastWrongTag, Sodium.constantTimeEquals(
                    try KeyError.crypto({ () throws(CryptoError) in try DerivedPasscode.wrongTag(of: key, tagKey: tagKey) }), lastWrongTag) {
                    return DerivedPasscode(key: key, salt: salt, lockEpoch: lockEpoch, verdict: .refused)
                }
                switch try verifier.open(blob, passcodeKey: key) {
                case .right(let secret):
                    return DerivedPasscode(
                        key: try entangle(key, with: secret), salt: salt, lockEpoch: lockEpoch, verdict: .verified)
                case .wrong:
                    return DerivedPasscode(key: key, salt: salt, lockEpoch: lockEpoch, verdict: .refused)
                case .lockedOut(let retryAfter):
                    throw .tryAgainLater(retryAfter: retryAfter ?? PasscodeVerdict.unknownLockoutWait)
                }
            }
        }
    }
}

/// A derived passcode key, in secure memory, ready for `TimelineStore.finishUnlock`.
package struct DerivedPasscode: @unchecked Sendable {
    /// What a passcode verifier said of the attempt.
    package enum Verdict {
        /// No verifier was asked: `key` is the passcode key, and unwrapping decides.
        case unverified
        /// The verifier released its secret: `key` is the entangled key.
        case verified
        /// The verifier refused (and counted) it: `key` is the passcode key, kept only
        /// for the repeated-passcode tag.
        case refused
    }

    /// `nil` when derived while no passcode was set.
    package let key: SecureBytes?
    /// The salt it was derived with, to detect a passcode change in between.
    package let salt: [UInt8]?
    /// The lock epoch the unlock arrived in.
    package let lockEpoch: LockEpoch
    package var verdict: Verdict = .unverified
    /// A new passcode's blob from the verifier, for the keybag.
    package var tangleBlob: [UInt8]? = nil

    /// The keybag's tag of a wrong passcode key (keyed hash under a device subkey, never
    /// the key): a repeat of the last wrong passcode is not counted twice.
    package static func wrongTag(of key: SecureBytes, tagKey: SecureBytes) throws(CryptoError) -> [UInt8] {
        let tag = try KeyedHash.hash(key, key: tagKey)
        return tag.withUnsafeBytes { Array($0) }
    }
}
