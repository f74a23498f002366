import CTPM2

/// The fixed templates widgetd creates its TPM objects from.
enum TPM2Templates {
    /// The storage primary key: ECC P-256 (created in a few milliseconds, where an RSA
    /// primary takes a key search), restricted decrypt with AES-128-CFB for its children,
    /// `noDA` (its empty auth is not a secret worth counting).
    ///
    /// The same template under the same owner seed gives the same key every time, so no
    /// persistent handle is needed. The storage seed in ``TPM2Indices/storageSeed`` goes
    /// into `unique`, which the TPM hashes into the key's derivation: a new seed, a new
    /// key, and nothing sealed under the old one loads again.
    static func storagePrimary(seed: UnsafeRawBufferPointer) -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = ctpm2_alg_ecc
        template.publicArea.nameAlg = ctpm2_alg_sha256
        template.publicArea.objectAttributes =
            ctpm2_object_fixedtpm | ctpm2_object_fixedparent | ctpm2_object_sensitivedataorigin
            | ctpm2_object_userwithauth | ctpm2_object_restricted | ctpm2_object_decrypt | ctpm2_object_noda
        template.publicArea.parameters.eccDetail.symmetric.algorithm = ctpm2_alg_aes
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = ctpm2_alg_cfb
        template.publicArea.parameters.eccDetail.scheme.scheme = ctpm2_alg_null
        template.publicArea.parameters.eccDetail.curveID = ctpm2_ecc_nist_p256
        template.publicArea.parameters.eccDetail.kdf.scheme = ctpm2_alg_null
        withUnsafeMutableBytes(of: &template.publicArea.unique.ecc.x.buffer) { buffer in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: seed.prefix(buffer.count)))
        }
        template.publicArea.unique.ecc.x.size = UInt16(min(seed.count, MemoryLayout.size(ofValue: template.publicArea.unique.ecc.x.buffer)))
        return template
    }

    /// A sealed data object (`KEYEDHASH` with no scheme): what `TPM2_Unseal` gives back.
    /// Usable with its auth value (`userWithAuth`), never duplicated (`fixedTPM`,
    /// `fixedParent`). `noDA` only when it has no auth value: the passcode tangle's
    /// failures must count.
    static func sealedObject(dictionaryAttackProtected: Bool) -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = ctpm2_alg_keyedhash
        template.publicArea.nameAlg = ctpm2_alg_sha256
        template.publicArea.objectAttributes =
            ctpm2_object_fixedtpm | ctpm2_object_fixedparent | ctpm2_object_userwithauth
            | (dictionaryAttackProtected ? 0 : ctpm2_object_noda)
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = ctpm2_alg_null
        return template
    }

    /// The salted HMAC session's parameter encryption: AES-128-CFB.
    static var sessionCipher: TPMT_SYM_DEF {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = ctpm2_alg_aes
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = ctpm2_alg_cfb
        return symmetric
    }
}
