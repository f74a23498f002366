import WidgetCrypto

/// The slow half of an unlock (Argon2id, about 100 ms), detached from the store so
/// that the daemon can run it off its event-loop thread.
///
/// Obtained from `TimelineStore.beginUnlock(now:lockEpoch:)`, which has already checked the
/// failed-attempt delay. It holds a copy of the passcode-tangle subkey of the device
/// key (in secure memory), the keybag's salt and cost, and the lock epoch the unlock
/// arrived in; it touches no store state.
public struct PasscodeDerivation: @unchecked Sendable {
    enum Mode {
        /// No passcode is set: nothing to derive, the unlock succeeds unless a lock overtakes it.
        case noPasscode
        /// Argon2id with the keybag's salt and cost, then keyed BLAKE2b under the tangle key.
        case argon2id(salt: [UInt8], cost: KDFCost, tangleKey: SecureBytes)
    }

    let mode: Mode
    /// When the unlock arrived, so that a Lock after it wins (`StoreError.unlockInterrupted`).
    let lockEpoch: LockEpoch

    /// Derives the passcode key: `BLAKE2b(key: tangle(deviceKey), Argon2id(passcode, salt))`.
    ///
    /// Safe to call from any thread. The passcode is not retained.
    public func derive(_ passcode: SecureBytes) throws(StoreError) -> DerivedPasscode {
        switch mode {
        case .noPasscode:
            return DerivedPasscode(key: nil, salt: nil, lockEpoch: lockEpoch)
        case .argon2id(let salt, let cost, let tangleKey):
            let key = try crypto { () throws(CryptoError) in
                let stretched = try PasswordHash.derive(passcode: passcode, salt: salt, cost: cost)
                return try KeyedHash.hash(stretched, key: tangleKey)
            }
            return DerivedPasscode(key: key, salt: salt, lockEpoch: lockEpoch)
        }
    }
}

/// A derived passcode key, in secure memory, ready for `TimelineStore.finishUnlock`.
public struct DerivedPasscode: @unchecked Sendable {
    /// `nil` when derived while no passcode was set.
    let key: SecureBytes?
    /// The salt it was derived with, to detect a passcode change in between.
    let salt: [UInt8]?
    /// The lock epoch the unlock arrived in.
    let lockEpoch: LockEpoch
}
