import SecureMemory
import WidgetCrypto

/// The passcode tangle's auth value (DESIGN §9): what the TPM checks a passcode
/// against, so that a wrong passcode is a TPM authorisation failure counted by its
/// dictionary-attack protection, which no file restore resets.
///
/// Derived from the passcode's Argon2id output with its own label, so that the value
/// the TPM sees (and which crosses the TPM's bus, encrypted in a salted session) is
/// neither the passcode key nor anything that unwraps a class key by itself.
package enum TPM2PasscodeTangle {
    /// The label of the derivation (BLAKE2b keyed with the Argon2id output).
    package static let label = "widgetd.v3.tpm2-tangle-auth"

    /// The auth value for a passcode whose Argon2id output is `passcodeKey`
    /// (``TPM2Device/maximumAuthValueCount`` bytes).
    package static func authValue(fromPasscodeKey passcodeKey: SecureBytes) throws(TPM2Error) -> SecureBytes {
        do { return try KeyedHash.deriveKey(from: passcodeKey, label: label) } catch { throw .crypto(error) }
    }
}
