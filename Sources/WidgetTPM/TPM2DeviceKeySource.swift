import CTPM2
import Glibc
import SecureMemory
import WidgetCrypto

/// The device key sealed by the TPM (`KeyProtection=tpm2`, DESIGN §9): the 32 bytes
/// exist on disk only as `STATE/device-key.tpm2`, a blob this TPM alone can unseal,
/// and a wipe ends it in the TPM (``TPM2Device/wipe()``), so no backup of the state
/// directory brings it back.
///
/// It plugs into WidgetStore's `DeviceKeySource` (`loadDeviceKey(mayCreate:)` and
/// `destroyDeviceKey()`, the device key's custody injected into the store): the two
/// methods here have that protocol's shape, ``SealedDeviceKeySource``, with this
/// module's error type, because WidgetTPM sits below the store. The conformance is a
/// forwarding extension where both modules are visible, which reports the custody as
/// `DeviceKeyKind.tpm2` and turns ``TPM2DeviceKeyError`` into the store's error.
///
/// Threading: as the store's protocol, called on the store's thread only (the device
/// itself may be shared: it locks).
package struct TPM2DeviceKeySource: SealedDeviceKeySource {
    /// The blob's file name inside the state directory.
    package static let blobFileName = "device-key.tpm2"
    /// The device key's length.
    package static let keyByteCount = 32

    /// The TPM the key is sealed by.
    package let device: TPM2Device
    private let stateDirectory: String

    /// A source over an opened device.
    package init(device: TPM2Device, stateDirectory: String) {
        self.device = device
        self.stateDirectory = stateDirectory
    }

    /// Opens the TPM that `TPM2Device=` names and checks that it answers, for the
    /// daemon's start with `KeyProtection=tpm2`. A TPM that is missing or failing is
    /// ``TPM2DeviceKeyError/deviceUnavailable(tcti:reason:)``: a start error, never a
    /// fall back to a software key.
    ///
    /// The device then uses the store's own NV indices: the ones `STATE/tpm2-indices`
    /// names; ``TPM2Indices/standard`` for a store sealed before indices were chosen
    /// per store (a blob and no such file); for a new store (neither), a free pair
    /// chosen now and recorded durably before anything is defined at it.
    package static func open(tcti: String, stateDirectory: String) throws(TPM2DeviceKeyError) -> TPM2DeviceKeySource {
        let device: TPM2Device
        do throws(TPM2Error) {
            device = try TPM2Device(tcti: tcti, indices: .standard)
            // Opening a TCTI need not send a command (device: only opens the file).
            _ = try device.dictionaryAttackStatus()
        } catch {
            throw .deviceUnavailable(tcti: tcti, reason: error)
        }
        let source = TPM2DeviceKeySource(device: device, stateDirectory: stateDirectory)
        if var stored = try SealedBlobFile.read(source.indicesPath) {
            defer { stored.withUnsafeMutableBytes { ctpm2_zero($0.baseAddress, $0.count) } }
            let header = TPM2Indices.fileHeaderCount
            guard stored.count == header + indicesAuthCount, let indices = TPM2Indices(fileBytes: Array(stored.prefix(header))) else {
                throw .file(path: source.indicesPath, reason: "not a widgetd TPM2 indices file")
            }
            let copied = stored.withUnsafeBytes { raw in
                Result { () throws(SecureMemoryError) in try SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[header...])) }
            }
            let authValue: SecureBytes
            switch copied {
            case .success(let value): authValue = value
            case .failure(let error): throw .tpm(.crypto(CryptoError(error)))
            }
            device.adopt(indices, authValue: authValue)
        } else if try SealedBlobFile.read(source.blobPath) == nil {
            try source.chooseIndices()
        }
        return source
    }

    /// The length of the indices' auth value.
    static let indicesAuthCount = 32

    /// `STATE/tpm2-indices`.
    package var indicesPath: String { "\(stateDirectory)/\(TPM2Indices.fileName)" }

    /// What the keybag records of where this store's TPM state is (under its MAC): the
    /// indices' 8 bytes, or none for a store on ``TPM2Indices/standard`` (made before
    /// indices were chosen per store, whose keybag records none).
    package var recordedIndices: [UInt8] { device.indices == .standard ? [] : device.indices.recorded }

    /// Chooses a free pair of indices and a fresh auth value for them, defines the
    /// counter and the storage seed there (``TPM2Device/defineStoreIndices()``), then
    /// records both durably in `STATE/tpm2-indices` (mode 0600). A crash between the two
    /// leaves a pair defined that no store names: the next start chooses another.
    private func chooseIndices() throws(TPM2DeviceKeyError) {
        let authValue: SecureBytes
        do throws(SecureMemoryError) { authValue = try SecureBytes.random(count: Self.indicesAuthCount) } catch {
            throw .tpm(.crypto(CryptoError(error)))
        }
        let indices: TPM2Indices
        do throws(TPM2Error) {
            indices = try device.chooseFreeIndices()
            device.adopt(indices, authValue: authValue)
            try device.defineStoreIndices()
        } catch { throw .tpm(error) }
        var bytes = indices.fileBytes + authValue.withUnsafeBytes { Array($0) }
        defer { bytes.withUnsafeMutableBytes { ctpm2_zero($0.baseAddress, $0.count) } }
        try SealedBlobFile.write(bytes, to: indicesPath, directory: stateDirectory)
    }

    /// `STATE/device-key.tpm2`.
    package var blobPath: String { "\(stateDirectory)/\(Self.blobFileName)" }

    /// Unseals the stored blob; when there is none and `mayCreate` (no keybag yet),
    /// seals a fresh key and stores its blob durably first. A missing blob beside a
    /// keybag is ``TPM2DeviceKeyError/missing(path:)``, never a new key.
    package func loadDeviceKey(mayCreate: Bool) throws(TPM2DeviceKeyError) -> SecureBytes {
        if let stored = try SealedBlobFile.read(blobPath) {
            let key: SecureBytes
            do throws(TPM2Error) { key = try device.unseal(TPM2SealedBlob(bytes: stored)) } catch { throw .tpm(error) }
            guard key.count == Self.keyByteCount else { throw .wrongSize(bytes: key.count) }
            return key
        }
        guard mayCreate else { throw .missing(path: blobPath) }
        let fresh: SecureBytes
        do throws(SecureMemoryError) { fresh = try SecureBytes.random(count: Self.keyByteCount) } catch { throw .tpm(.crypto(CryptoError(error))) }
        let blob: TPM2SealedBlob
        do throws(TPM2Error) { blob = try device.seal(fresh) } catch { throw .tpm(error) }
        try SealedBlobFile.write(blob.bytes, to: blobPath, directory: stateDirectory)
        return fresh
    }

    /// The TPM side of a wipe first (the counter advanced, the storage seed undefined:
    /// no blob sealed before opens again, wherever a copy lies), then the blob file.
    /// Repeatable: an interrupted wipe is finished by doing it again.
    ///
    /// A store on ``TPM2Indices/standard`` leaves them here: the store made next chooses
    /// a pair of its own, so it no longer shares them with any other instance.
    package func destroyDeviceKey() throws(TPM2DeviceKeyError) {
        do throws(TPM2Error) { _ = try device.wipe() } catch { throw .tpm(error) }
        try SealedBlobFile.remove(blobPath)
        if device.indices == .standard { try chooseIndices() }
    }
}

/// The shape of WidgetStore's `DeviceKeySource`, which ``TPM2DeviceKeySource`` plugs
/// into, with WidgetTPM's error type.
package protocol SealedDeviceKeySource {
    /// The device key, made and sealed when absent and `mayCreate`.
    func loadDeviceKey(mayCreate: Bool) throws(TPM2DeviceKeyError) -> SecureBytes
    /// Destroys what the source keeps of the key, as part of a wipe.
    func destroyDeviceKey() throws(TPM2DeviceKeyError)
}

/// Why the TPM-sealed device key could not be had. No case carries key material.
package enum TPM2DeviceKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `KeyProtection=tpm2` and the TPM is missing or failing: the daemon does not start.
    case deviceUnavailable(tcti: String, reason: TPM2Error)
    /// The blob file is gone while a keybag exists.
    case missing(path: String)
    /// The blob unsealed to a secret that is not a device key.
    case wrongSize(bytes: Int)
    /// The blob file could not be read, written or removed (`errno`'s text).
    case file(path: String, reason: String)
    /// The TPM refused (another TPM's blob, a wiped seed, lockout, …).
    case tpm(TPM2Error)

    package var description: String {
        switch self {
        case .deviceUnavailable(let tcti, let reason):
            "KeyProtection=tpm2: TPM2Device=\(tcti) cannot be used (\(reason)); widgetd does not fall back to a software device key"
        case .missing(let path): "the TPM-sealed device key \(path) is missing beside an existing keybag"
        case .wrongSize(let bytes): "the TPM-sealed device key is \(bytes) bytes, not 32"
        case .file(let path, let reason): "\(path): \(reason)"
        case .tpm(let error): "\(error)"
        }
    }
}
