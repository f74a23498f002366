import SecureMemory

/// A symmetric key that wraps keys for the owner of an X25519 key pair, derived from
/// the pair's secret key: whoever holds the secret can wrap and unwrap without any
/// scalar multiplication, and nobody else can do either.
///
/// The key is `BLAKE2b(key: secret key, "widgetd.v4.class-wrap-key" ‖ class code u8 ‖
/// key generation u32 (big-endian) ‖ public key)`, computed anew
/// wherever it is needed and never stored, so it exists exactly as long as the secret
/// it comes from is held.
///
/// Why this is sound beside the pair's use in X25519: the secret key is 32 uniformly
/// random bytes (`KeyPair.generate`), a valid key for keyed BLAKE2b, which is a PRF
/// under a uniformly random key. The exchange reveals of the secret only values of
/// scalar multiplications (the public key, agreed secrets); none is an input or output
/// of this hash, and the label, which nothing else hashed under that key starts with,
/// keeps the derivation apart from every other use. Modelling BLAKE2b as a random
/// oracle, telling the derived key from random means querying the hash at the secret
/// itself, which recovers the X25519 secret from its public key (a discrete logarithm).
/// The class, generation and public key make the keys of different pairs unrelated
/// even if a secret were ever reused.
package enum ClassWrapKey {
    private static let label = Array("widgetd.v4.class-wrap-key".utf8)

    /// Derives the wrap key of `keyPair`, the pair of class `classCode` and key
    /// generation `generation`, into fresh secure memory, which the caller owns and
    /// zeroes when done. A pair whose secret was zeroed and emptied (purged) derives
    /// nothing: `.invalidLength`.
    package static func derive(from keyPair: KeyPair, classCode: UInt8, generation: UInt32) throws(CryptoError) -> SecureBytes {
        guard keyPair.secretKey.count == KeyPair.secretKeyByteCount else {
            throw .invalidLength(what: "secret key", expected: KeyPair.secretKeyByteCount, actual: keyPair.secretKey.count)
        }
        let context = [classCode] + (0..<4).map { UInt8(truncatingIfNeeded: generation >> (24 - 8 * $0)) }
        return try KeyedHash.hash(
            label + context + keyPair.publicKey.bytes, key: keyPair.secretKey, outputLength: AEAD.keyByteCount)
    }
}
