import CTPM2

/// What the NV helpers shared by the counter and the storage seed do: find an index,
/// check it is the one widgetd defines, define it, close ESAPI's handle to it.
extension TPM2Device {
    /// ESAPI's handle to the index, or `nil` when the TPM has no such index. The caller
    /// closes it (``closeIndex(_:)``); NV handles are not flushed.
    ///
    /// The corresponding C function is `Esys_TR_FromTPMPublic`.
    func openIndex(_ index: UInt32) throws(TPM2Error) -> ESYS_TR? {
        var handle = ctpm2_tr_none
        let rc = TPM2ResponseCode(
            rawValue: Esys_TR_FromTPMPublic(context, index, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, &handle))
        if rc.rawValue == 0 { return handle }
        if rc.matches(.handle) { return nil }
        throw TPM2Error.from(rc, command: "TR_FromTPMPublic")
    }

    /// Releases ESAPI's metadata for an NV handle (the index stays in the TPM).
    func closeIndex(_ handle: ESYS_TR) {
        var handle = handle
        _ = Esys_TR_Close(context, &handle)
    }

    /// Checks that an index has the attributes and size widgetd gives it, so that an
    /// index another program defined at the same place is never used or changed.
    ///
    /// The corresponding C function is `Esys_NV_ReadPublic`.
    func checkIndex(_ handle: ESYS_TR, index: UInt32, attributes: TPMA_NV, size: UInt16) throws(TPM2Error) {
        var nvPublic: UnsafeMutablePointer<TPM2B_NV_PUBLIC>?
        defer { Esys_Free(nvPublic) }
        try check(Esys_NV_ReadPublic(context, handle, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, &nvPublic, nil), "NV_ReadPublic")
        // TPMA_NV_WRITTEN and the lock bits change with use; the rest is what was defined.
        let fixedBits: TPMA_NV = ~(0x2000_0000 | 0x1000_0000 | 0x0000_0800)
        guard let area = nvPublic?.pointee.nvPublic, area.attributes & fixedBits == attributes, area.dataSize == size else {
            throw .foreignIndex(index: index)
        }
    }

    /// Defines an index with an empty auth value under owner authorisation.
    ///
    /// The corresponding C function is `Esys_NV_DefineSpace`.
    func defineIndex(_ index: UInt32, attributes: TPMA_NV, size: UInt16) throws(TPM2Error) -> ESYS_TR {
        var info = TPM2B_NV_PUBLIC()
        info.nvPublic.nvIndex = index
        info.nvPublic.nameAlg = ctpm2_alg_sha256
        info.nvPublic.attributes = attributes
        info.nvPublic.dataSize = size
        var auth = TPM2B_AUTH()
        var handle = ctpm2_tr_none
        try check(
            Esys_NV_DefineSpace(context, ctpm2_tr_owner, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, &auth, &info, &handle),
            "NV_DefineSpace")
        return handle
    }
}
