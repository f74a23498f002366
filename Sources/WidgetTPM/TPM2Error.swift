import WidgetCrypto

/// Why a TPM operation failed. No case carries a secret, so an error can be logged as is.
package enum TPM2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The TCTI could not be loaded or could not reach the TPM (a missing `/dev/tpmrm0`,
    /// a socket nobody listens on, a malformed TCTI string).
    case unavailable(tcti: String, code: TPM2ResponseCode)
    /// The auth value was wrong (`TPM_RC_AUTH_FAIL` or `TPM_RC_BAD_AUTH`). For an object
    /// under dictionary-attack protection the TPM has counted it.
    case authorizationFailed(TPM2ResponseCode)
    /// The TPM is in dictionary-attack lockout and refuses every protected
    /// authorisation, the right one too, until its recovery time passes.
    case lockedOut(TPM2ResponseCode)
    /// This TPM cannot load the blob: sealed by another TPM, or before a wipe replaced
    /// the storage seed (`TPM_RC_INTEGRITY` and its relatives).
    case blobRejected(TPM2ResponseCode)
    /// The storage seed index is absent: nothing was sealed on this TPM since it was
    /// cleared or wiped, so no blob can open.
    case storageSeedMissing(index: UInt32)
    /// The TPM ran out of object or session slots: a handle was not flushed.
    case outOfResources(TPM2ResponseCode)
    /// The NV counter has never been incremented, so it has no value yet.
    case counterUninitialized(index: UInt32)
    /// The store's NV counter is gone: undefined by someone with the TPM's owner or
    /// platform authorisation, or the TPM was cleared. Never defined again: the files'
    /// anchors could no longer be checked.
    case counterMissing(index: UInt32)
    /// An NV index exists but is not what widgetd defines there (another program's).
    case foreignIndex(index: UInt32)
    /// Every pair of indices widgetd chooses from (``TPM2Indices/chosenRange``) is taken.
    case noFreeIndices
    /// A blob file is not a blob of this format.
    case malformedBlob(String)
    /// A secret had a length the TPM cannot take.
    case invalidLength(what: String, expected: ClosedRange<Int>, actual: Int)
    /// Secure memory could not be had for a secret.
    case crypto(CryptoError)
    /// The TPM did not answer a command within the device's I/O bound, or the
    /// connection to it failed mid-command (a tpm2-tss TCTI I/O error).
    case noAnswer(command: String, code: TPM2ResponseCode)
    /// Any other failure of a TPM command, with the command's name.
    case commandFailed(command: String, code: TPM2ResponseCode)

    /// The TPM or tpm2-tss response code behind the error, when there is one.
    package var responseCode: TPM2ResponseCode? {
        switch self {
        case .unavailable(_, let code), .authorizationFailed(let code), .lockedOut(let code),
            .blobRejected(let code), .outOfResources(let code), .noAnswer(_, let code), .commandFailed(_, let code):
            code
        case .storageSeedMissing, .counterUninitialized, .counterMissing, .foreignIndex, .noFreeIndices, .malformedBlob, .invalidLength, .crypto:
            nil
        }
    }

    package var description: String {
        switch self {
        case .unavailable(let tcti, let code): "TPM2 device \(tcti) is unavailable: \(code)"
        case .authorizationFailed(let code): "TPM2 authorization failed: \(code)"
        case .lockedOut(let code): "TPM2 is in dictionary-attack lockout: \(code)"
        case .blobRejected(let code): "TPM2 cannot load this blob (another TPM, or sealed before a wipe): \(code)"
        case .storageSeedMissing(let index):
            "TPM2 storage seed NV index 0x\(String(index, radix: 16)) is absent (TPM cleared or wiped)"
        case .outOfResources(let code): "TPM2 is out of object or session slots: \(code)"
        case .counterUninitialized(let index): "TPM2 NV counter 0x\(String(index, radix: 16)) was never incremented"
        case .counterMissing(let index):
            "TPM2 NV counter 0x\(String(index, radix: 16)) is gone (undefined with the TPM's owner or platform authorization, or the TPM was cleared); it is never defined again"
        case .foreignIndex(let index): "TPM2 NV index 0x\(String(index, radix: 16)) belongs to something else"
        case .noFreeIndices:
            "TPM2 has no free pair of NV indices in 0x\(String(TPM2Indices.chosenRange.lowerBound, radix: 16))–0x\(String(TPM2Indices.chosenRange.upperBound, radix: 16))"
        case .malformedBlob(let reason): "not a TPM2 sealed blob: \(reason)"
        case .invalidLength(let what, let expected, let actual):
            "\(what) must be \(expected.lowerBound)–\(expected.upperBound) bytes, got \(actual)"
        case .crypto(let error): "\(error)"
        case .noAnswer(let command, let code): "TPM2 \(command) got no answer from the TPM in time: \(code)"
        case .commandFailed(let command, let code): "TPM2 \(command) failed: \(code)"
        }
    }

    /// The typed error for a failed command: the codes a caller acts on by name, the
    /// rest as `commandFailed`.
    static func from(_ code: TPM2ResponseCode, command: String) -> TPM2Error {
        if code.matches(.authFail) || code.matches(.badAuth) { return .authorizationFailed(code) }
        if code.matches(.lockout) { return .lockedOut(code) }
        if code.matches(.objectMemory) || code.matches(.sessionMemory) { return .outOfResources(code) }
        if code.isTCTIInputOutput { return .noAnswer(command: command, code: code) }
        return .commandFailed(command: command, code: code)
    }
}
