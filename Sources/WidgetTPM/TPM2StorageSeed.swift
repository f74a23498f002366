import CTPM2
import WidgetCrypto

/// The storage seed: 32 random bytes in an NV index that go into the storage primary
/// key's template (``TPM2Templates/storagePrimary(seed:)``).
///
/// Why a seed in NV rather than a seed in a file: what makes old blobs unloadable after
/// a wipe must be something a restored backup cannot bring back. A template input kept
/// on disk would be restored with the blobs, and the same template recreates the same
/// key. An index in the TPM is not in any backup; undefining it at a wipe ends every
/// blob sealed before, and the next seal defines a fresh one. It keeps the primary key
/// transient (no persistent handle to share with other users of the TPM, nothing to
/// evict but the index). Reads cost no NV wear; the only write is one per wipe.
extension TPM2Device {
    /// The seed's length.
    static let storageSeedCount: UInt16 = 32
    /// Owner-authorised, ordinary, `noDA`: readable and writable with owner auth only
    /// (not with an auth value of its own, which would be empty).
    static let storageSeedAttributes: TPMA_NV = ctpm2_nv_ownerwrite | ctpm2_nv_ownerread | ctpm2_nv_no_da

    /// The seed, defined (with fresh random bytes) when absent and `mayDefine`.
    ///
    /// The corresponding C functions are `Esys_NV_Read` and, to define, `Esys_NV_DefineSpace`
    /// and `Esys_NV_Write`.
    func storageSeed(mayDefine: Bool) throws(TPM2Error) -> SecureBytes {
        let index = indices.storageSeed
        if let handle = try openIndex(index) {
            defer { closeIndex(handle) }
            try checkIndex(handle, index: index, attributes: Self.storageSeedAttributes, size: Self.storageSeedCount)
            return try readSeed(handle)
        }
        guard mayDefine else { throw .storageSeedMissing(index: index) }
        let fresh: SecureBytes
        do { fresh = try SecureBytes.random(count: Int(Self.storageSeedCount)) } catch { throw .crypto(error) }
        let handle = try defineIndex(index, attributes: Self.storageSeedAttributes, size: Self.storageSeedCount)
        defer { closeIndex(handle) }
        do throws(TPM2Error) {
            try SecureStructure.with(TPM2B_MAX_NV_BUFFER.self) { (data) throws(TPM2Error) in
                try SecureStructure.fill(&data.pointee.buffer, size: &data.pointee.size, from: fresh, what: "storage seed")
                try check(
                    Esys_NV_Write(context, ctpm2_tr_owner, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, data, 0),
                    "NV_Write")
            }
        } catch {
            // An index defined but never written would read as uninitialised forever.
            _ = Esys_NV_UndefineSpace(context, ctpm2_tr_owner, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none)
            throw error
        }
        return fresh
    }

    private func readSeed(_ handle: ESYS_TR) throws(TPM2Error) -> SecureBytes {
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        defer {
            if let data { ctpm2_zero(data, MemoryLayout<TPM2B_MAX_NV_BUFFER>.size) }
            Esys_Free(data)
        }
        try check(
            Esys_NV_Read(
                context, ctpm2_tr_owner, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, Self.storageSeedCount, 0,
                &data),
            "NV_Read")
        guard let data, data.pointee.size == Self.storageSeedCount else { throw .foreignIndex(index: indices.storageSeed) }
        return try SecureStructure.copy(&data.pointee.buffer, size: data.pointee.size)
    }

    /// What `Wipe` does in the TPM: increments the counter (so every keybag and catalog
    /// from before is older than it) and undefines the storage seed (so no blob sealed
    /// before, the device key's and the tangle's, loads again, even from a backup).
    /// Returns the counter's new value.
    ///
    /// The counter goes first: a crash between the two leaves the counter ahead, which
    /// refuses the old keybag anyway, and a repeated wipe finishes the job.
    ///
    /// The corresponding C functions are `Esys_NV_Increment` and `Esys_NV_UndefineSpace`.
    public func wipe() throws(TPM2Error) -> UInt64 {
        try locked { () throws(TPM2Error) -> UInt64 in
            let value = try incrementCounterLocked()
            if let handle = try openIndex(indices.storageSeed) {
                do throws(TPM2Error) {
                    try checkIndex(
                        handle, index: indices.storageSeed, attributes: Self.storageSeedAttributes, size: Self.storageSeedCount)
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
            }
            return value
        }
    }
}
