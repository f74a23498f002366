import CTPM2

/// The NV counter that anchors widgetd's keybag and catalog against rollback: a TPM
/// monotonic counter (`TPM_NT_COUNTER`), which only `TPM2_NV_Increment` changes and
/// nothing can set back, and which survives reboots and restored backups.
///
/// Each increment is an NV write (about a millisecond, and NV memory wears out):
/// callers increment at keybag changes, journal folds and orderly stops, never per
/// timeline write.
///
/// A store's counter is defined with its storage seed when its indices are chosen
/// (``defineStoreIndices()``) and never again: one that is gone is ``TPM2Error/counterMissing(index:)``.
extension TPM2Device {
    /// `TPM_NT_COUNTER`, 8 bytes, read and incremented with the store's own auth value
    /// only, `noDA` (32 random bytes are not guessed).
    static let counterAttributes: TPMA_NV = ctpm2_nv_type_counter | ctpm2_nv_authread | ctpm2_nv_authwrite | ctpm2_nv_no_da
    /// The counter of stores made before indices were chosen per store: also the
    /// owner's to read and increment, with an empty auth value of its own.
    static let standardCounterAttributes: TPMA_NV =
        ctpm2_nv_type_counter | ctpm2_nv_ownerread | ctpm2_nv_ownerwrite | ctpm2_nv_authread | ctpm2_nv_authwrite
        | ctpm2_nv_no_da
    static let counterSize: UInt16 = 8

    /// The attribute sets a counter at this device's indices may have.
    var acceptedCounterAttributes: [TPMA_NV] {
        placement.authValue == nil
            ? [Self.standardCounterAttributes] : [Self.counterAttributes, Self.counterAttributes | Self.platformAttributes]
    }

    /// Increments the counter and returns its new value. Only indices of before (no auth
    /// value of the store's own) have theirs defined here when absent, as they always were.
    ///
    /// The corresponding C function is `Esys_NV_Increment`.
    package func incrementCounter() throws(TPM2Error) -> UInt64 {
        try locked { () throws(TPM2Error) -> UInt64 in try incrementCounterLocked() }
    }

    /// The counter's value. Throws `.counterUninitialized` when it was never
    /// incremented, `.counterMissing` when it is gone (for indices of before, never
    /// defined reads as never incremented).
    ///
    /// The corresponding C function is `Esys_NV_Read`.
    package func readCounter() throws(TPM2Error) -> UInt64 {
        try locked { () throws(TPM2Error) -> UInt64 in
            let index = placement.indices.counter
            guard let handle = try openIndex(index) else {
                if placement.authValue == nil { throw .counterUninitialized(index: index) }
                throw .counterMissing(index: index)
            }
            defer { closeIndex(handle) }
            try checkIndex(handle, index: index, attributes: acceptedCounterAttributes, size: Self.counterSize)
            return try readCounter(handle)
        }
    }

    func incrementCounterLocked() throws(TPM2Error) -> UInt64 {
        let index = placement.indices.counter
        let handle: ESYS_TR
        if let found = try openIndex(index) {
            handle = found
            do throws(TPM2Error) {
                try checkIndex(handle, index: index, attributes: acceptedCounterAttributes, size: Self.counterSize)
            } catch {
                closeIndex(handle)
                throw error
            }
        } else if placement.authValue == nil {
            handle = try defineIndex(index, attributes: Self.standardCounterAttributes, size: Self.counterSize)
        } else {
            throw .counterMissing(index: index)
        }
        defer { closeIndex(handle) }
        try authorizeIndex(handle)
        try check(
            Esys_NV_Increment(context, handle, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none), "NV_Increment")
        return try readCounter(handle)
    }

    private func readCounter(_ handle: ESYS_TR) throws(TPM2Error) -> UInt64 {
        try authorizeIndex(handle)
        var data: UnsafeMutablePointer<TPM2B_MAX_NV_BUFFER>?
        defer { Esys_Free(data) }
        let rc = TPM2ResponseCode(
            rawValue: Esys_NV_Read(
                context, handle, handle, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, Self.counterSize, 0, &data))
        if rc.matches(.nvUninitialized) { throw .counterUninitialized(index: placement.indices.counter) }
        guard rc.rawValue == 0 else { throw TPM2Error.from(rc, command: "NV_Read") }
        guard let data, data.pointee.size == Self.counterSize else { throw .foreignIndex(index: placement.indices.counter) }
        // Big-endian on the wire, as every TPM integer.
        return withUnsafeBytes(of: &data.pointee.buffer) { bytes in
            bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }
}
