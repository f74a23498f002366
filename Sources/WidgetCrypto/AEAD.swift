import CSodium
import SecureMemory

/// XChaCha20-Poly1305 (IETF) authenticated encryption with associated data.
///
/// The sealed form is `nonce ‖ ciphertext ‖ tag`; the 24-byte nonce is random by
/// default, which is safe for XChaCha20 at any volume. Ciphertexts are not secret
/// and are plain `[UInt8]`; keys and plaintexts are `SecureBytes`.
package enum AEAD {
    /// Key length in bytes.
    package static let keyByteCount = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    /// Nonce length in bytes.
    package static let nonceByteCount = Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
    /// Authentication tag length in bytes.
    package static let tagByteCount = Int(crypto_aead_xchacha20poly1305_ietf_abytes())
    /// Bytes a sealed message adds to its plaintext (nonce and tag).
    package static let overhead = nonceByteCount + tagByteCount

    /// A fresh random key.
    package static func generateKey() throws(CryptoError) -> SecureBytes {
        try CryptoError.mapping { () throws(SecureMemoryError) in try SecureBytes.random(count: keyByteCount) }
    }

    /// Encrypts and authenticates `plaintext`, binding `associatedData`.
    ///
    /// The corresponding C function is `crypto_aead_xchacha20poly1305_ietf_encrypt`.
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, nonce suppliedNonce: [UInt8]? = nil, associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        // The overload below checks the key and the nonce.
        let nonce: [UInt8]
        if let given = suppliedNonce { nonce = given } else { nonce = try Sodium.randomBytes(count: nonceByteCount) }
        return try nonce.withBytes { (nonce) throws(CryptoError) in
            try seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
        }
    }

    /// Encrypts with a nonce the caller drew (held where it likes: no array needed).
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, nonce: UnsafeRawBufferPointer, associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialized()
        guard key.count == keyByteCount else {
            throw .invalidLength(what: "AEAD key", expected: keyByteCount, actual: key.count)
        }
        guard nonce.count == nonceByteCount else {
            throw .invalidLength(what: "AEAD nonce", expected: nonceByteCount, actual: nonce.count)
        }
        var sealed = [UInt8](repeating: 0, count: nonceByteCount + plaintext.count + tagByteCount)
        var written: UInt64 = 0
        let result = sealed.withUnsafeMutableBytes { out in
            out.copyBytes(from: nonce)
            return key.withUnsafeBytes { k in
                associatedData.withUnsafeBytes { ad in
                    crypto_aead_xchacha20poly1305_ietf_encrypt(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self) + nonceByteCount, &written,
                        plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        ad.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(ad.count),
                        nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        try Sodium.check(result, "crypto_aead_xchacha20poly1305_ietf_encrypt")
        return sealed
    }

    /// Encrypts a secret plaintext.
    package static func seal(
        _ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8]? = nil, associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try plaintext.withUnsafeBytes { (p) throws(CryptoError) in
            try seal(p, key: key, nonce: nonce, associatedData: associatedData)
        }
    }

    /// Encrypts a plaintext that is not secret in itself (metadata, wrapped keys).
    package static func seal(
        _ plaintext: [UInt8], key: SecureBytes, nonce: [UInt8]? = nil, associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try plaintext.withBytes { (p) throws(CryptoError) in
            try seal(p, key: key, nonce: nonce, associatedData: associatedData)
        }
    }

    /// Verifies and decrypts a sealed message into secure memory.
    ///
    /// Throws `.authenticationFailure` if any byte of `sealed`, the key or the
    /// associated data differs from what was sealed; no plaintext is returned then.
    /// The corresponding C function is `crypto_aead_xchacha20poly1305_ietf_decrypt`.
    /// With `slab`, the plaintext is carved out of it (`SecureSlab`: for many kept together).
    package static func open(
        _ sealed: UnsafeRawBufferPointer, key: SecureBytes, associatedData: [UInt8], in slab: SecureSlab? = nil
    ) throws(CryptoError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard key.count == keyByteCount else {
            throw .invalidLength(what: "AEAD key", expected: keyByteCount, actual: key.count)
        }
        guard sealed.count >= overhead, let base = sealed.baseAddress else { throw .authenticationFailure }
        let plaintext = try CryptoError.mapping { () throws(SecureMemoryError) in
            let count = sealed.count - overhead
            if let slab { return try slab.zeroed(count: count) }
            return try SecureBytes.zeroed(count: count)
        }
        var written: UInt64 = 0
        let input = base.assumingMemoryBound(to: UInt8.self)
        let result = plaintext.withUnsafeMutableBytes { out in
            key.withUnsafeBytes { k in
                associatedData.withUnsafeBytes { ad in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, nil,
                        input + nonceByteCount, UInt64(sealed.count - nonceByteCount),
                        ad.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(ad.count),
                        input, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        guard result == 0 else { throw .authenticationFailure }
        return plaintext
    }

    /// Verifies and decrypts a sealed message held in an array.
    package static func open(
        _ sealed: [UInt8], key: SecureBytes, associatedData: [UInt8], in slab: SecureSlab? = nil
    ) throws(CryptoError) -> SecureBytes {
        try sealed.withBytes { (s) throws(CryptoError) in try open(s, key: key, associatedData: associatedData, in: slab) }
    }
}
