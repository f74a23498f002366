import SecureMemory
import StoreKeys
import WidgetStore
import WidgetTPM

/// `KeyProtection=tpm2`: the TPM-sealed device key (`TPM2DeviceKeySource`, only
/// `STATE/device-key.tpm2` on disk) as the store's `DeviceKeySource`.
///
/// WidgetTPM sits below the store and throws its own `TPM2DeviceKeyError`; the store's
/// protocol throws `KeyError`. This is where both modules are visible, so the
/// forwarding lives here: a missing blob beside a keybag is the store's
/// `deviceKey(.missing)` like a missing key file, and every other refusal (another
/// TPM's blob, a wiped seed, a TPM that stopped answering) is
/// `deviceKey(.sourceFailed(source: .tpm2, reason:))` with the TPM's text, which names
/// the device and the response code and never the key.
///
/// Threading: as the store's protocol, on the store's thread only.
struct TPM2StoreDeviceKeySource: DeviceKeySource {
    let sealed: TPM2DeviceKeySource

    /// Opens the TPM `TPM2Device=` names and checks that it answers. A TPM that is
    /// missing or failing throws `TPM2DeviceKeyError.deviceUnavailable`, a start
    /// error: the daemon never falls back to a software device key.
    static func open(tcti: String, stateDirectory: String) throws(TPM2DeviceKeyError) -> TPM2StoreDeviceKeySource {
        TPM2StoreDeviceKeySource(sealed: try TPM2DeviceKeySource.open(tcti: tcti, stateDirectory: stateDirectory))
    }

    func loadDeviceKey(mayCreate: Bool) throws(KeyError) -> (key: SecureBytes, kind: DeviceKeyKind) {
        do throws(TPM2DeviceKeyError) {
            return (try sealed.loadDeviceKey(mayCreate: mayCreate), .tpm2)
        } catch {
            throw Self.keyError(error)
        }
    }

    /// The store's NV indices (`TPM2DeviceKeySource.recordedIndices`).
    var keybagBinding: [UInt8] { sealed.recordedIndices }

    func destroyDeviceKey() throws(KeyError) {
        do throws(TPM2DeviceKeyError) { try sealed.destroyDeviceKey() } catch { throw Self.keyError(error) }
    }

    /// The store's view of a TPM refusal; no case of either type carries key material.
    static func keyError(_ error: TPM2DeviceKeyError) -> KeyError {
        switch error {
        case .missing(let path): .deviceKey(.missing(path: path))
        case .deviceUnavailable, .wrongSize, .file, .tpm: .deviceKey(.sourceFailed(source: .tpm2, reason: error.description))
        }
    }
}
