import CTPM2

/// A secret sealed by one TPM: the sealed object's public and private areas, as
/// `TPM2_Create` returned them, marshalled with tpm2-tss's `Tss2_MU_*`.
///
/// Not secret by itself: the private area is encrypted and integrity-protected under
/// the TPM's storage primary key, which never leaves the TPM and which widgetd derives
/// from the storage seed in NV (``TPM2Device/wipe()`` replaces it). Only that TPM, before
/// the next wipe, can load it. Stored on disk as ``bytes``.
///
/// Layout: `"WTPM"`, a version byte (1), a kind byte (0: no auth value, `noDA`; 1: needs
/// an auth value and counts under dictionary-attack protection), `TPM2B_PUBLIC`,
/// `TPM2B_PRIVATE`, nothing after.
package struct TPM2SealedBlob: Sendable, Equatable {
    /// The blob as stored.
    package let bytes: [UInt8]
    /// Whether unsealing needs the auth value it was sealed with (the passcode tangle).
    package let requiresAuthValue: Bool

    private static let magic: [UInt8] = Array("WTPM".utf8)
    private static let version: UInt8 = 1
    private static let headerCount = 6

    /// Reads a stored blob, checking its layout (not yet that this TPM can load it).
    package init(bytes: [UInt8]) throws(TPM2Error) {
        guard bytes.count > Self.headerCount, Array(bytes[0..<4]) == Self.magic else {
            throw .malformedBlob("no WTPM header")
        }
        guard bytes[4] == Self.version else { throw .malformedBlob("version \(bytes[4]) is not 1") }
        guard bytes[5] <= 1 else { throw .malformedBlob("unknown kind \(bytes[5])") }
        self.bytes = bytes
        self.requiresAuthValue = bytes[5] == 1
        _ = try areas()
    }

    /// Marshals what `TPM2_Create` returned.
    init(public: TPM2B_PUBLIC, private: TPM2B_PRIVATE, requiresAuthValue: Bool) throws(TPM2Error) {
        var publicArea = `public`, privateArea = `private`
        var body = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PUBLIC>.size + MemoryLayout<TPM2B_PRIVATE>.size)
        var offset = 0
        let rc = body.withUnsafeMutableBufferPointer { buffer -> TSS2_RC in
            let first = Tss2_MU_TPM2B_PUBLIC_Marshal(&publicArea, buffer.baseAddress, buffer.count, &offset)
            guard first == 0 else { return first }
            return Tss2_MU_TPM2B_PRIVATE_Marshal(&privateArea, buffer.baseAddress, buffer.count, &offset)
        }
        guard rc == 0 else { throw .commandFailed(command: "marshal sealed blob", code: TPM2ResponseCode(rawValue: rc)) }
        self.bytes = Self.magic + [Self.version, requiresAuthValue ? 1 : 0] + body[0..<offset]
        self.requiresAuthValue = requiresAuthValue
    }

    /// The public and private areas, unmarshalled.
    func areas() throws(TPM2Error) -> (public: TPM2B_PUBLIC, private: TPM2B_PRIVATE) {
        var publicArea = TPM2B_PUBLIC(), privateArea = TPM2B_PRIVATE()
        var offset = Self.headerCount
        let rc = bytes.withUnsafeBufferPointer { buffer -> TSS2_RC in
            let first = Tss2_MU_TPM2B_PUBLIC_Unmarshal(buffer.baseAddress, buffer.count, &offset, &publicArea)
            guard first == 0 else { return first }
            return Tss2_MU_TPM2B_PRIVATE_Unmarshal(buffer.baseAddress, buffer.count, &offset, &privateArea)
        }
        guard rc == 0 else { throw .malformedBlob("\(TPM2ResponseCode(rawValue: rc))") }
        guard offset == bytes.count else { throw .malformedBlob("\(bytes.count - offset) bytes after the private area") }
        return (publicArea, privateArea)
    }
}
