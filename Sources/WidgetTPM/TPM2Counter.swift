import CTPM2

/// The NV counter that anchors widgetd's keybag and catalog against rollback: a TPM
/// monotonic counter (`TPM_NT_COUNTER`), which only `TPM2_NV_Increment` changes and
/// nothing can set back, and which survives reboots and restored backups.
///
/// Each increment is an NV write (about a millisecond, and NV memory wears out):
/// callers increment at keybag changes, journal folds and orderly stops, never per
/// timeline write.
extension TPM2Device {
    /// `TPM_NT_COUNTER`, 8 bytes, readable and incrementable with its own empty auth
    /// value or owner auth, `noDA` (its auth is not a secret).
    static let counterAttributes: TPMA_NV =
        ctpm2_nv_type_counter | ctpm2_nv_ownerread | ctpm2_nv_ownerwrite | ctpm2_nv_authread | ctpm2_nv_authwrite
        | ctpm2_nv_no_da
    static let counterSize: UInt16 = 8

    /// Increments the counter, defining it first if the TPM has none at
    /// ``TPM2Indices/counter``, and returns its new value.
    ///
    /// The corresponding C function is `Esys_NV_Increment`.
    public func incrementCounter() throws(TPM2Error) -> UInt64 {
        try locked { () throws(TPM2Error) -> UInt64 in try incrementCounterLocked() }
    }

    /// The counter's value. Throws `.counterUninitialized` when it was never
    /// incremented (or never defined).
    ///
    /// The corresponding C function is `Esys_NV_Read`.
    public func readCounter() throws(TPM2Error) -> UInt64 {
        try locked { () throws(TPM2Error) -> UInt64 in
            guard let handle = try openIndex(indices.counter) else { throw .counterUninitialized(index: indices.counter) }
            defer { closeIndex(handle) }
            try checkIndex(handle, index: indices.counter, attributes: Self.counterAttributes, size: Self.counterSize)
            return try readCounter(handle)
        }
    }

    func incrementCounterLocked() throws(TPM2Error) -> UInt64 {
        let index = indices.counter
        let handle: ESYS_TR
        if let found = try openIndex(index) {
            handle = found
            do throws(TPM2Error) { try checkIndex(handle, index: index, attributes: Self.counterAttributes, size: Self.counterSize) } catch {
                closeIndex(handle)
                throw error
            }
        } else {
            handle = try defineIndex(index, attributes: Self.counterAttributes, size: Self.counterSize)
        }
        defer { closeIndex(handle) }
        try check(
            Esys_NV_Increment(context, handle, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none), "NV_Increment")
        return try readCounter(handle)
    }

    private func readCounter(_ handle: ESYS_TR) throws(TPM2Error) -> UInt64 {
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        defer { Esys_Free(data) }
        let rc = TPM2ResponseCode(
            rawValue: Esys_NV_Read(
                context, handle, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, Self.counterSize, 0, &data))
        if rc.matches(.nvUninitialized) { throw .counterUninitialized(index: indices.counter) }
        guard rc.rawValue == 0 else { throw TPM2Error.from(rc, command: "NV_Read") }
        guard let data, data.pointee.size == Self.counterSize else { throw .foreignIndex(index: indices.counter) }
        // Big-endian on the wire, as every TPM integer.
        return withUnsafeBytes(of: &data.pointee.buffer) { bytes in
            bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }
}
