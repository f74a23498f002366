import CSodium
import SecureMemory

/// Anonymous public-key encryption: anyone holding a public key can seal, only the
/// key pair's owner can open (`crypto_box_seal`).
///
/// This is what lets every protection class be written while locked: a writer
/// needs only the class public key, never its secret.
package enum SealedBox {
    /// Bytes a sealed box adds to its plaintext (an ephemeral public key and a tag).
    package static let overhead = Int(crypto_box_sealbytes())

    /// Seals a secret (typically a per-file key) to `publicKey`.
    ///
    /// The corresponding C function is `crypto_box_seal`.
    package static func seal(_ plaintext: SecureBytes, to publicKey: PublicKey) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialized()
        var sealed = [UInt8](repeating: 0, count: plaintext.count + overhead)
        let result = plaintext.withUnsafeBytes { p in
            crypto_box_seal(
                &sealed, p.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(p.count), publicKey.bytes)
        }
        try Sodium.check(result, "crypto_box_seal")
        return sealed
    }

    /// Opens a sealed box into secure memory; `.authenticationFailure` if it was
    /// altered or sealed to another key.
    ///
    /// The corresponding C function is `crypto_box_seal_open`.
    package static func open(_ sealed: UnsafeRawBufferPointer, keyPair: KeyPair) throws(CryptoError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard sealed.count >= overhead, let base = sealed.baseAddress else { throw .authenticationFailure }
        let plaintext = try CryptoError.mapping { () throws(SecureMemoryError) in try SecureBytes.zeroed(count: sealed.count - overhead) }
        let result = plaintext.withUnsafeMutableBytes { out in
            keyPair.secretKey.withUnsafeBytes { sk in
                crypto_box_seal_open(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    base.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count),
                    keyPair.publicKey.bytes, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard result == 0 else { throw .authenticationFailure }
        return plaintext
    }

    /// Opens a sealed box held in an array.
    package static func open(_ sealed: [UInt8], keyPair: KeyPair) throws(CryptoError) -> SecureBytes {
        try sealed.withBytes { (s) throws(CryptoError) in try open(s, keyPair: keyPair) }
    }
}
