import CTPM2

/// What the NV helpers shared by the counter and the storage seed do: find an index,
/// check it is the one widgetd defines, define it, close ESAPI's handle to it.
///
/// **Who may touch a store's indices.** A store's counter and seed are defined with an
/// auth value of their own (32 random bytes in `STATE/tpm2-indices`, mode 0600), and
/// are read, incremented and written only with it: not with the owner's authorisation,
/// which is empty on most machines and open to anyone who may open the TPM device. So
/// another local user can neither read the seed (and with it re-derive the primary key)
/// nor increment the counter (which would make the store look rolled back).
///
/// Removing an index is the TPM's own rule: one the owner defined can be undefined with
/// owner authorisation whatever its auth value. So the indices are defined with platform
/// authorisation when the platform hierarchy takes it (swtpm, firmware that leaves it
/// open), with `TPMA_NV_POLICY_DELETE` and a policy that only
/// `TPM2_NV_UndefineSpaceSpecial` satisfies: then only the platform can remove them,
/// and `TPM2_Clear` does not. Where the firmware keeps the platform hierarchy (most PCs)
/// they are the owner's, and only an owner authorisation set by the administrator keeps
/// others from undefining them (SECURITY.md). Either way widgetd never undefines them,
/// and a counter that is gone is a start error, never defined again.
extension TPM2Device {
    /// The policy that deletes a platform index: `TPM2_PolicyCommandCode(TPM_CC_NV_UndefineSpaceSpecial)`
    /// from an empty digest, SHA-256(0³² ‖ 0x0000016C ‖ 0x0000011F).
    static let undefineSpecialPolicy: [UInt8] = [
        0x1d, 0x2d, 0xc4, 0x85, 0xe1, 0x77, 0xdd, 0xd0, 0xa4, 0x0a, 0x34, 0x49, 0x13, 0xce, 0xeb, 0x42,
        0x0c, 0xaa, 0x09, 0x3c, 0x42, 0x58, 0x7d, 0x2e, 0x1b, 0x13, 0x2b, 0x15, 0x7c, 0xcb, 0x5d, 0xb0,
    ]
    /// What a platform-defined index adds to its attributes.
    static let platformAttributes: TPMA_NV = ctpm2_nv_platformcreate | ctpm2_nv_policy_delete

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

    /// Checks that an index has one of the attribute sets and the size widgetd gives it,
    /// so that an index another program defined at the same place is never used or
    /// changed; returns the attributes found.
    ///
    /// The corresponding C function is `Esys_NV_ReadPublic`.
    @discardableResult
    func checkIndex(_ handle: ESYS_TR, index: UInt32, attributes: [TPMA_NV], size: UInt16) throws(TPM2Error) -> TPMA_NV {
        var nvPublic: UnsafeMutablePointer<TPM2B_NV_PUBLIC>?
        defer { Esys_Free(nvPublic) }
        try check(Esys_NV_ReadPublic(context, handle, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, &nvPublic, nil), "NV_ReadPublic")
        // TPMA_NV_WRITTEN and the lock bits change with use; the rest is what was defined.
        let fixedBits: TPMA_NV = ~(0x2000_0000 | 0x1000_0000 | 0x0000_0800)
        guard let area = nvPublic?.pointee.nvPublic, attributes.contains(area.attributes & fixedBits), area.dataSize == size
        else {
            throw .foreignIndex(index: index)
        }
        return area.attributes & fixedBits
    }

    /// Gives ESAPI the index's own auth value (the store's, or empty for indices of
    /// before), for a command authorised by the index itself.
    func authorizeIndex(_ handle: ESYS_TR) throws(TPM2Error) {
        try setAuth(handle, placement.authValue)
    }

    /// Defines an index: under the platform with `platform` (then `TPMA_NV_PLATFORMCREATE`,
    /// `TPMA_NV_POLICY_DELETE` and ``undefineSpecialPolicy`` are added), else under the
    /// owner; with the store's auth value, or empty for indices of before.
    ///
    /// The corresponding C function is `Esys_NV_DefineSpace`.
    func defineIndex(_ index: UInt32, attributes: TPMA_NV, size: UInt16, platform: Bool = false) throws(TPM2Error) -> ESYS_TR {
        var info = TPM2B_NV_PUBLIC()
        info.nvPublic.nvIndex = index
        info.nvPublic.nameAlg = ctpm2_alg_sha256
        info.nvPublic.attributes = attributes | (platform ? Self.platformAttributes : 0)
        info.nvPublic.dataSize = size
        if platform {
            withUnsafeMutableBytes(of: &info.nvPublic.authPolicy.buffer) { buffer in
                buffer.copyBytes(from: Self.undefineSpecialPolicy)
            }
            info.nvPublic.authPolicy.size = UInt16(Self.undefineSpecialPolicy.count)
        }
        var handle = ctpm2_tr_none
        try SecureStructure.with(TPM2B_AUTH.self) { (auth) throws(TPM2Error) in
            if let authValue = placement.authValue {
                try SecureStructure.fill(&auth.pointee.buffer, size: &auth.pointee.size, from: authValue, what: "NV auth value")
            }
            try check(
                Esys_NV_DefineSpace(
                    context, platform ? ctpm2_tr_platform : ctpm2_tr_owner, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none,
                    auth, &info, &handle),
                "NV_DefineSpace")
        }
        return handle
    }

    /// Defines a new store's counter and storage seed (fresh random bytes) at its
    /// indices, with its auth value: under the platform when the platform hierarchy
    /// takes it, else under the owner (see the extension's summary). Returns whether
    /// they are the platform's.
    ///
    /// The corresponding C functions are `Esys_NV_DefineSpace` and `Esys_NV_Write`.
    @discardableResult
    package func defineStoreIndices() throws(TPM2Error) -> Bool {
        try locked { () throws(TPM2Error) -> Bool in
            let indices = placement.indices
            var platform = true
            let counter: ESYS_TR
            do throws(TPM2Error) {
                counter = try defineIndex(indices.counter, attributes: Self.counterAttributes, size: Self.counterSize, platform: true)
            } catch .outOfResources(let code) {
                throw .outOfResources(code)
            } catch {
                // The platform hierarchy is the firmware's (disabled, or its auth set).
                platform = false
                counter = try defineIndex(indices.counter, attributes: Self.counterAttributes, size: Self.counterSize)
            }
            closeIndex(counter)
            let seed = try defineIndex(
                indices.storageSeed, attributes: Self.storageSeedAttributes, size: Self.storageSeedCount, platform: platform)
            defer { closeIndex(seed) }
            try writeFreshSeed(seed)
            return platform
        }
    }
}
