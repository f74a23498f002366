import CTPM2
import SecureMemory

extension TPM2Device {
    /// The largest secret a sealed object holds (`MAX_SYM_DATA`).
    package static let maximumSecretCount = 128
    /// The largest auth value: the size of a SHA-256 digest, the objects' name algorithm.
    package static let maximumAuthValueCount = 32

    /// Seals `secret` (the device key, the passcode tangle's secret) under this TPM's
    /// storage primary key.
    ///
    /// Without `authValue` the object is `noDA` and opens with no authorisation (the
    /// device key: what protects it is that only this TPM can load it). With
    /// `authValue` (derived from the passcode's Argon2id output) it opens only with that
    /// value, and every wrong value is counted by the TPM's dictionary-attack
    /// protection. The secret and auth value travel to the TPM encrypted, in a session
    /// salted with the primary key.
    ///
    /// The corresponding C functions are `Esys_CreatePrimary`, `Esys_StartAuthSession`
    /// and `Esys_Create`.
    package func seal(_ secret: SecureBytes, authValue: SecureBytes? = nil) throws(TPM2Error) -> TPM2SealedBlob {
        guard (1...Self.maximumSecretCount).contains(secret.count) else {
            throw .invalidLength(what: "sealed secret", expected: 1...Self.maximumSecretCount, actual: secret.count)
        }
        if let authValue { try Self.checkAuthValue(authValue) }
        return try locked { () throws(TPM2Error) -> TPM2SealedBlob in
            let primary = try createStoragePrimary(mayDefineSeed: true)
            defer { flush(primary) }
            // Decrypt: the first command parameter (the sensitive area) goes encrypted.
            let session = try startSaltedSession(key: primary, attributes: ctpm2_session_decrypt)
            defer { flush(session) }
            var template = TPM2Templates.sealedObject(dictionaryAttackProtected: authValue != nil)
            var outsideInfo = TPM2B_DATA(), creationPCR = TPML_PCR_SELECTION()
            var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?, outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
            defer {
                Esys_Free(outPrivate)
                Esys_Free(outPublic)
            }
            try SecureStructure.with(TPM2B_SENSITIVE_CREATE.self) { (sensitive) throws(TPM2Error) in
                try SecureStructure.fill(
                    &sensitive.pointee.sensitive.data.buffer, size: &sensitive.pointee.sensitive.data.size,
                    from: secret, what: "sealed secret")
                if let authValue {
                    try SecureStructure.fill(
                        &sensitive.pointee.sensitive.userAuth.buffer, size: &sensitive.pointee.sensitive.userAuth.size,
                        from: authValue, what: "auth value")
                }
                try check(
                    Esys_Create(
                        context, primary, session, ctpm2_tr_none, ctpm2_tr_none, sensitive, &template, &outsideInfo,
                        &creationPCR, &outPrivate, &outPublic, nil, nil, nil),
                    "Create")
            }
            guard let outPrivate, let outPublic else { throw .commandFailed(command: "Create", code: .init(rawValue: 0)) }
            return try TPM2SealedBlob(
                public: outPublic.pointee, private: outPrivate.pointee, requiresAuthValue: authValue != nil)
        }
    }

    /// Unseals a blob this TPM sealed, with the auth value it was sealed with if any.
    ///
    /// Throws `.blobRejected` for a blob of another TPM or from before a wipe,
    /// `.storageSeedMissing` after a wipe when nothing was sealed since,
    /// `.authorizationFailed` for a wrong auth value (counted) and `.lockedOut` while
    /// the TPM is in dictionary-attack lockout (whatever the auth value). The secret
    /// comes back encrypted in a session salted with the primary key.
    ///
    /// The corresponding C functions are `Esys_CreatePrimary`, `Esys_Load`,
    /// `Esys_StartAuthSession` and `Esys_Unseal`.
    package func unseal(_ blob: TPM2SealedBlob, authValue: SecureBytes? = nil) throws(TPM2Error) -> SecureBytes {
        guard blob.requiresAuthValue == (authValue != nil) else {
            throw .malformedBlob(blob.requiresAuthValue ? "sealed with an auth value" : "sealed without an auth value")
        }
        if let authValue { try Self.checkAuthValue(authValue) }
        var (publicArea, privateArea) = try blob.areas()
        return try locked { () throws(TPM2Error) -> SecureBytes in
            let primary = try createStoragePrimary(mayDefineSeed: false)
            defer { flush(primary) }
            var object = ctpm2_tr_none
            let loaded = TPM2ResponseCode(
                rawValue: Esys_Load(
                    context, primary, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, &privateArea, &publicArea, &object))
            if loaded.rawValue != 0 {
                let error = TPM2Error.from(loaded, command: "Load")
                // Whatever else Load says (integrity, binding, size, value) means this
                // TPM's primary key is not the blob's parent.
                if case .commandFailed = error { throw .blobRejected(loaded) }
                throw error
            }
            defer {
                // ESAPI keeps the auth value in the object's metadata until flushed.
                try? setAuth(object, nil)
                flush(object)
            }
            if let authValue { try setAuth(object, authValue) }
            // Encrypt: the first response parameter (the secret) comes back encrypted.
            let session = try startSaltedSession(key: primary, attributes: ctpm2_session_encrypt)
            defer { flush(session) }
            var outData: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
            defer {
                if let outData { ctpm2_zero(outData, MemoryLayout<TPM2B_SENSITIVE_DATA>.size) }
                Esys_Free(outData)
            }
            try check(Esys_Unseal(context, object, session, ctpm2_tr_none, ctpm2_tr_none, &outData), "Unseal")
            guard let outData else { throw .commandFailed(command: "Unseal", code: .init(rawValue: 0)) }
            return try SecureStructure.copy(&outData.pointee.buffer, size: outData.pointee.size)
        }
    }

    /// Creates the storage primary key from the fixed template and the storage seed.
    /// The caller flushes it.
    func createStoragePrimary(mayDefineSeed: Bool) throws(TPM2Error) -> ESYS_TR {
        let seed = try storageSeed(mayDefine: mayDefineSeed)
        var template = seed.withUnsafeBytes { TPM2Templates.storagePrimary(seed: $0) }
        defer { withUnsafeMutableBytes(of: &template) { ctpm2_zero($0.baseAddress, $0.count) } }
        var sensitive = TPM2B_SENSITIVE_CREATE(), outsideInfo = TPM2B_DATA(), creationPCR = TPML_PCR_SELECTION()
        var handle = ctpm2_tr_none
        try check(
            Esys_CreatePrimary(
                context, ctpm2_tr_owner, ctpm2_tr_password, ctpm2_tr_none, ctpm2_tr_none, &sensitive, &template,
                &outsideInfo, &creationPCR, &handle, nil, nil, nil, nil),
            "CreatePrimary")
        return handle
    }

    /// Starts an HMAC session salted with `key`, so that its session key (and with it
    /// the encrypted parameters) is unknown to anyone watching the TPM's bus. The caller
    /// flushes it.
    func startSaltedSession(key: ESYS_TR, attributes: TPMA_SESSION) throws(TPM2Error) -> ESYS_TR {
        var symmetric = TPM2Templates.sessionCipher
        var session = ctpm2_tr_none
        try check(
            Esys_StartAuthSession(
                context, key, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, ctpm2_tr_none, nil, ctpm2_session_hmac,
                &symmetric, ctpm2_alg_sha256, &session),
            "StartAuthSession")
        let set = Esys_TRSess_SetAttributes(context, session, attributes | ctpm2_session_continue, 0xFF)
        guard set == 0 else {
            flush(session)
            throw TPM2Error.from(TPM2ResponseCode(rawValue: set), command: "TRSess_SetAttributes")
        }
        return session
    }

    /// Gives ESAPI the auth value of `handle` (`nil`: empty, overwriting the last one).
    func setAuth(_ handle: ESYS_TR, _ authValue: SecureBytes?) throws(TPM2Error) {
        try SecureStructure.with(TPM2B_AUTH.self) { (auth) throws(TPM2Error) in
            if let authValue {
                try SecureStructure.fill(&auth.pointee.buffer, size: &auth.pointee.size, from: authValue, what: "auth value")
            }
            try check(Esys_TR_SetAuth(context, handle, auth), "TR_SetAuth")
        }
    }

    private static func checkAuthValue(_ authValue: SecureBytes) throws(TPM2Error) {
        guard (1...maximumAuthValueCount).contains(authValue.count) else {
            throw .invalidLength(what: "auth value", expected: 1...maximumAuthValueCount, actual: authValue.count)
        }
    }
}
