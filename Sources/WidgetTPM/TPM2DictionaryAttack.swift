import CTPM2

/// The TPM's dictionary-attack state, as `TPM2_GetCapability` reports it.
package struct TPM2DictionaryAttackStatus: Sendable, Equatable {
    /// Authorisation failures counted so far (`TPM_PT_LOCKOUT_COUNTER`).
    package let failedTries: UInt32
    /// Failures that put the TPM in lockout (`TPM_PT_MAX_AUTH_FAIL`).
    package let maxTries: UInt32
    /// Seconds after which one failure is forgiven (`TPM_PT_LOCKOUT_INTERVAL`).
    package let recoveryTime: UInt32
    /// Seconds after a failed lockout authorisation before it may be tried again.
    package let lockoutRecovery: UInt32
    /// Whether the TPM is in lockout now (`TPMA_PERMANENT.inLockout`).
    package let inLockout: Bool
}

extension TPM2Device {
    /// Sets the dictionary-attack parameters, with the lockout hierarchy's (empty)
    /// authorisation: for tests, which shrink them so a lockout is seen in seconds, and
    /// for an administrator's tooling.
    ///
    /// The corresponding C function is `Esys_DictionaryAttackParameters`.
    package func setDictionaryAttackParameters(maxTries: UInt32, recoveryTime: UInt32, lockoutRecovery: UInt32) throws(TPM2Error) {
        try locked { () throws(TPM2Error) in
            try check(
                Esys_DictionaryAttackParameters(
                    context, ctpm2_tr_lockout, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, maxTries, recoveryTime,
                    lockoutRecovery),
                "DictionaryAttackParameters")
        }
    }

    /// Clears the failure count and any lockout, with the lockout hierarchy's (empty)
    /// authorisation.
    ///
    /// The corresponding C function is `Esys_DictionaryAttackLockReset`.
    package func resetDictionaryAttackLockout() throws(TPM2Error) {
        try locked { () throws(TPM2Error) in
            try check(
                Esys_DictionaryAttackLockReset(context, ctpm2_tr_lockout, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none),
                "DictionaryAttackLockReset")
        }
    }

    /// The failure count, the parameters and whether the TPM is locked out now.
    ///
    /// The corresponding C function is `Esys_GetCapability`.
    package func dictionaryAttackStatus() throws(TPM2Error) -> TPM2DictionaryAttackStatus {
        try locked { () throws(TPM2Error) -> TPM2DictionaryAttackStatus in
            var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
            defer { Esys_Free(data) }
            var more: TPMI_YES_NO = 0
            let first = ctpm2_pt_permanent
            let count = ctpm2_pt_lockout_counter + 4 - first
            try check(
                Esys_GetCapability(
                    context, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, ctpm2_cap_tpm_properties, first, count, &more, &data),
                "GetCapability")
            var values: [UInt32: UInt32] = [:]
            if let data {
                let properties = data.pointee.data.tpmProperties
                withUnsafeBytes(of: properties.tpmProperty) { raw in
                    let tagged = raw.bindMemory(to: TPMS_TAGGED_PROPERTY.self)
                    for property in tagged.prefix(Int(properties.count)) { values[property.property] = property.value }
                }
            }
            let counter = ctpm2_pt_lockout_counter
            return TPM2DictionaryAttackStatus(
                failedTries: values[counter] ?? 0, maxTries: values[counter + 1] ?? 0,
                recoveryTime: values[counter + 2] ?? 0, lockoutRecovery: values[counter + 3] ?? 0,
                inLockout: (values[first] ?? 0) & ctpm2_permanent_inlockout != 0)
        }
    }
}
