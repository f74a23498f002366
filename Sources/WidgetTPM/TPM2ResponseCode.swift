import CTPM2

/// A tpm2-tss response code (`TSS2_RC`): the TPM's own answer, or an error from one of
/// the software layers (ESAPI, TCTI, marshalling) in bits 16–23.
///
/// `base` strips what varies with the command (which handle, session or parameter the
/// TPM blamed), so that `0x98E` (authorisation failed, session 1) and `0x08E` compare as
/// the same error.
package struct TPM2ResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as tpm2-tss returned it.
    package let rawValue: UInt32

    /// Wraps a raw code.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Authorisation with an HMAC or password failed (`TPM_RC_AUTH_FAIL`, 0x08E; 0x98E
    /// for session 1). Counted by dictionary-attack protection unless the object is `noDA`.
    package static let authFail = TPM2ResponseCode(rawValue: 0x08E)
    /// A policy or password authorisation failed without DA counting (`TPM_RC_BAD_AUTH`).
    package static let badAuth = TPM2ResponseCode(rawValue: 0x0A2)
    /// The private area failed its integrity check: a blob of another TPM or parent
    /// (`TPM_RC_INTEGRITY`).
    package static let integrity = TPM2ResponseCode(rawValue: 0x09F)
    /// The TPM is in dictionary-attack lockout (`TPM_RC_LOCKOUT`).
    package static let lockout = TPM2ResponseCode(rawValue: 0x921)
    /// No room for another loaded object (`TPM_RC_OBJECT_MEMORY`): a handle leaked.
    package static let objectMemory = TPM2ResponseCode(rawValue: 0x902)
    /// No room for another session (`TPM_RC_SESSION_MEMORY`): a session leaked.
    package static let sessionMemory = TPM2ResponseCode(rawValue: 0x903)
    /// The TPM asks to be retried (`TPM_RC_RETRY`).
    package static let retry = TPM2ResponseCode(rawValue: 0x922)
    /// The TPM has already been started (`TPM_RC_INITIALIZE`).
    package static let initialize = TPM2ResponseCode(rawValue: 0x100)
    /// An NV index was read before it was written (`TPM_RC_NV_UNINITIALIZED`).
    package static let nvUninitialized = TPM2ResponseCode(rawValue: 0x14A)
    /// An NV index is already defined (`TPM_RC_NV_DEFINED`).
    package static let nvDefined = TPM2ResponseCode(rawValue: 0x14C)
    /// A handle names nothing (`TPM_RC_HANDLE`, for example an undefined NV index).
    package static let handle = TPM2ResponseCode(rawValue: 0x08B)

    /// The software layer that answered (0: the TPM itself; 7: ESAPI; 10: the TCTI).
    package var layer: UInt32 { (rawValue >> 16) & 0xFF }

    /// The code without the handle, session or parameter number of a format-one TPM
    /// error, for comparison with the named constants.
    package var base: TPM2ResponseCode {
        guard layer == 0 else { return self }
        // Format one (bit 7): the error is bits 0–5, the blamed number bits 6–11.
        if rawValue & 0x080 != 0 { return TPM2ResponseCode(rawValue: 0x080 | (rawValue & 0x03F)) }
        return TPM2ResponseCode(rawValue: rawValue & 0xFFFF)
    }

    /// Whether the TCTI failed to send or receive (`TSS2_TCTI_RC_IO_ERROR`, `NO_CONNECTION`,
    /// `TRY_AGAIN`): the TPM did not answer within the I/O bound, or went away.
    package var isTCTIInputOutput: Bool {
        layer == 10 && [8, 9, 10].contains(rawValue & 0xFFFF)
    }

    /// Whether `other` is this error, whichever handle or session it names.
    package func matches(_ other: TPM2ResponseCode) -> Bool { base.rawValue == other.rawValue }

    /// The code in hex and tpm2-tss's text for it (`Tss2_RC_Decode`; never secret).
    package var description: String {
        let hex = String(rawValue, radix: 16)
        return "0x\(hex) (\(String(cString: Tss2_RC_Decode(rawValue))))"
    }
}
