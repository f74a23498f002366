import SecureMemory
import StoreKeys
import WidgetCrypto
import WidgetStore
import WidgetTPM

/// `KeyProtection=tpm2`: passcode attempts verified by the TPM (DESIGN §9), as the
/// store's `PasscodeVerifier`.
///
/// A new passcode gets a fresh 32-byte tangle secret sealed by the TPM under the auth
/// value `TPM2PasscodeTangle.authValue(fromPasscodeKey:)`, which only the passcode's key
/// (Argon2id, tangled with the device key) gives; the sealed object is under
/// dictionary-attack protection, so each wrong passcode is an authorisation failure the
/// TPM counts, and a lockout refuses every attempt until its recovery time passes.
/// Neither survives in a file that a restore could reset.
///
/// It shares the device key's `TPM2Device` (one connection: swtpm and a TPM without a
/// resource manager serve one at a time; the device locks). A wipe's undefined storage
/// seed ends the tangle blobs as it ends the device key's.
///
/// Threading: any thread (the store calls it in the derivation, off its own).
struct TPM2StorePasscodeVerifier: PasscodeVerifier {
    let device: TPM2Device

    /// The tangle secret's length: a BLAKE2b key.
    static let secretByteCount = 32

    var counting: AttemptCounting { .tpm2 }

    func enroll(passcodeKey: SecureBytes) throws(KeyError) -> (secret: SecureBytes, blob: [UInt8]) {
        do throws(TPM2Error) {
            let secret: SecureBytes
            do throws(SecureMemoryError) { secret = try SecureBytes.random(count: Self.secretByteCount) } catch { throw .crypto(CryptoError(error)) }
            let blob = try device.seal(secret, authValue: try TPM2PasscodeTangle.authValue(fromPasscodeKey: passcodeKey))
            return (secret, blob.bytes)
        } catch {
            throw Self.keyError(error)
        }
    }

    func open(_ blob: [UInt8], passcodeKey: SecureBytes) throws(KeyError) -> PasscodeVerdict {
        do throws(TPM2Error) {
            let sealed = try TPM2SealedBlob(bytes: blob)
            let secret = try device.unseal(sealed, authValue: try TPM2PasscodeTangle.authValue(fromPasscodeKey: passcodeKey))
            guard secret.count == Self.secretByteCount else { throw .malformedBlob("the passcode tangle is not 32 bytes") }
            return .right(secret)
        } catch .authorizationFailed {
            return .wrong
        } catch .lockedOut {
            return .lockedOut(retryAfter: recoveryWait)
        } catch {
            throw Self.keyError(error)
        }
    }

    /// While the TPM is in lockout, how long it lasts at most (``recoveryWait``); `nil`
    /// when it is not, or the TPM does not answer (the attempt then says so itself).
    func lockoutWait() -> Double? {
        guard let status = try? device.dictionaryAttackStatus(), status.inLockout, status.recoveryTime > 0 else { return nil }
        return Double(status.recoveryTime)
    }

    /// How long a lockout lasts at most: one failure is forgiven per recovery time, and
    /// one forgiven ends it. `nil` when the TPM does not say.
    private var recoveryWait: Double? {
        guard let status = try? device.dictionaryAttackStatus(), status.recoveryTime > 0 else { return nil }
        return Double(status.recoveryTime)
    }

    /// The store's view of a TPM refusal: a blob another TPM sealed or sealed before a
    /// wipe, a malformed blob, or a TPM that failed. The text names the response code,
    /// never a secret.
    static func keyError(_ error: TPM2Error) -> KeyError {
        .passcodeVerifierFailed(reason: "TPM2: \(error)")
    }
}

extension TPM2StorePasscodeVerifier {
    /// A verifier on the TPM that seals the device key.
    init(sharingDeviceOf source: TPM2StoreDeviceKeySource) {
        self.init(device: source.sealed.device)
    }
}
