import CTPM2
import SecureMemory
import WidgetCrypto

/// The storage seed: 32 random bytes in an NV index that go into the storage primary
/// key's template (``TPM2Templates/storagePrimary(seed:)``).
///
/// Why a seed in NV rather than a seed in a file: what makes old blobs unloadable after
/// a wipe must be something a restored backup cannot bring back. A template input kept
/// on disk would be restored with the blobs, and the same template recreates the same
/// key. An index in the TPM is not in any backup; replacing its bytes at a wipe ends
/// every blob sealed before. It keeps the primary key transient (no persistent handle to
/// share with other users of the TPM). Reads cost no NV wear; the only write is one per
/// wipe.
///
/// A store's seed is read and written with its own auth value only (see
/// ``defineStoreIndices()``): anyone else who read it could derive the same primary key
/// and load the store's blobs.
extension TPM2Device {
    /// The seed's length.
    static let storageSeedCount: UInt16 = 32
    /// Ordinary, `noDA`, read and written with the store's own auth value only.
    static let storageSeedAttributes: TPMA_NV = ctpm2_nv_authwrite | ctpm2_nv_authread | ctpm2_nv_no_da
    /// The seed of stores made before indices were chosen per store: the owner's to
    /// read and write (an empty authorisation on most machines).
    static let standardStorageSeedAttributes: TPMA_NV = ctpm2_nv_ownerwrite | ctpm2_nv_ownerread | ctpm2_nv_no_da

    /// The attribute sets a seed at this device's indices may have.
    var acceptedStorageSeedAttributes: [TPMA_NV] {
        placement.authValue == nil
            ? [Self.standardStorageSeedAttributes]
            : [Self.storageSeedAttributes, Self.storageSeedAttributes | Self.platformAttributes]
    }

    /// Whether the seed is authorised by the owner (indices of before) rather than by
    /// the store's own auth value.
    private var seedIsOwners: Bool { placement.authValue == nil }

    /// The seed. Only indices of before (no auth value of the store's own) have it
    /// defined here when absent and `mayDefine`; a store's own is defined with its
    /// counter (``defineStoreIndices()``).
    ///
    /// The corresponding C functions are `Esys_NV_Read` and, to define, `Esys_NV_DefineSpace`
    /// and `Esys_NV_Write`.
    func storageSeed(mayDefine: Bool) throws(TPM2Error) -> SecureBytes {
        let index = placement.indices.storageSeed
        if let handle = try openIndex(index) {
            defer { closeIndex(handle) }
            try checkIndex(handle, index: index, attributes: acceptedStorageSeedAttributes, size: Self.storageSeedCount)
            return try readSeed(handle)
        }
        guard mayDefine, seedIsOwners else { throw .storageSeedMissing(index: index) }
        let handle = try defineIndex(index, attributes: Self.standardStorageSeedAttributes, size: Self.storageSeedCount)
        defer { closeIndex(handle) }
        do throws(TPM2Error) {
            return try writeFreshSeed(handle)
        } catch {
            // An index defined but never written would read as uninitialised forever.
            _ = Esys_NV_UndefineSpace(context, ctpm2_tr_owner, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none)
            throw error
        }
    }

    /// Writes 32 fresh random bytes into the seed and returns them.
    ///
    /// The corresponding C function is `Esys_NV_Write`.
    @discardableResult
    func writeFreshSeed(_ handle: ESYS_TR) throws(TPM2Error) -> SecureBytes {
        let fresh: SecureBytes
        do { fresh = try SecureBytes.random(count: Int(Self.storageSeedCount)) } catch { throw .crypto(CryptoError(error)) }
        let authHandle = seedIsOwners ? ctpm2_tr_owner : handle
        if !seedIsOwners { try authorizeIndex(handle) }
        try SecureStructure.with(TPM2B_MAX_NV_BUFFER.self) { (data) throws(TPM2Error) in
            try SecureStructure.fill(&data.pointee.buffer, size: &data.pointee.size, from: fresh, what: "storage seed")
            try check(
                Esys_NV_Write(context, authHandle, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, data, 0), "NV_Write")
        }
        return fresh
    }

    private func readSeed(_ handle: ESYS_TR) throws(TPM2Error) -> SecureBytes {
        let authHandle = seedIsOwners ? ctpm2_tr_owner : handle
        if !seedIsOwners { try authorizeIndex(handle) }
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        defer {
            if let data { ctpm2_zero(data, MemoryLayout<TPM2B_MAX_NV_BUFFER>.size) }
            Esys_Free(data)
        }
        try check(
            Esys_NV_Read(
                context, authHandle, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, Self.storageSeedCount, 0, &data),
            "NV_Read")
        guard let data, data.pointee.size == Self.storageSeedCount else {
            throw .foreignIndex(index: placement.indices.storageSeed)
        }
        return try SecureStructure.copy(&data.pointee.buffer, size: data.pointee.size)
    }

    /// What `Wipe` does in the TPM: increments the counter (so every keybag and catalog
    /// from before is older than it) and replaces the storage seed's bytes (so no blob
    /// sealed before, the device key's and the tangle's, loads again, even from a
    /// backup). Indices of before have their seed undefined instead, as they always did.
    /// Returns the counter's new value.
    ///
    /// The counter goes first: a crash between the two leaves the counter ahead, which
    /// refuses the old keybag anyway, and a repeated wipe finishes the job.
    ///
    /// The corresponding C functions are `Esys_NV_Increment` and `Esys_NV_Write` (or
    /// `Esys_NV_UndefineSpace`).
    package func wipe() throws(TPM2Error) -> UInt64 {
        try locked { () throws(TPM2Error) -> UInt64 in
            let value = try incrementCounterLocked()
            let index = placement.indices.storageSeed
            guard let handle = try openIndex(index) else {
                if seedIsOwners { return value }
                throw .storageSeedMissing(index: index)
            }
            do throws(TPM2Error) {
                try checkIndex(handle, index: index, attributes: acceptedStorageSeedAttributes, size: Self.storageSeedCount)
                if !seedIsOwners {
                    try writeFreshSeed(handle)
                    closeIndex(handle)
                    return value
                }
            } catch {
                closeIndex(handle)
                throw error
            }
            // On success ESAPI releases the handle itself.
            let rc = Esys_NV_UndefineSpace(context, ctpm2_tr_owner, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none)
            if rc != 0 {
                closeIndex(handle)
                throw TPM2Error.from(TPM2ResponseCode(rawValue: rc), command: "NV_UndefineSpace")
            }
            return value
        }
    }
}
