import CSodium
import SecureMemory

/// A key-encryption key agreed with a recipient's X25519 public key by one
/// ephemeral-static exchange, so that anyone holding the public key can wrap keys
/// that only the key pair's owner can unwrap.
///
/// It does what `crypto_box_seal` does for one secret, but one exchange serves many:
/// a writer agrees one key per batch and recipient and wraps every file's fresh key
/// under it, instead of paying two X25519 operations per wrapped key. The key is
/// `BLAKE2b(key: X25519(ephemeral secret, recipient), label ‖ ephemeral public ‖
/// recipient public)`: bound to both public keys, as `crypto_box_seal` binds them
/// through its nonce, so a stored ephemeral key cannot be replayed against another
/// recipient. The ephemeral secret is zeroed as soon as the key is derived.
package final class KeyEncryptionKey: @unchecked Sendable {
    /// The ephemeral public key, stored beside whatever this key wraps.
    package let ephemeralPublicKey: PublicKey
    /// The recipient the key was agreed with.
    package let recipient: PublicKey
    /// The key itself (32 bytes of secure memory); zero it with `zero()` when done.
    package let key: SecureBytes

    private static let label = Array("widgetd.v2.key-encryption-key".utf8)

    private init(ephemeralPublicKey: PublicKey, recipient: PublicKey, key: SecureBytes) {
        self.ephemeralPublicKey = ephemeralPublicKey
        self.recipient = recipient
        self.key = key
    }

    /// Agrees a fresh key with `recipient`: two X25519 operations (the ephemeral key
    /// pair and the exchange).
    package static func agree(with recipient: PublicKey) throws(CryptoError) -> KeyEncryptionKey {
        let ephemeral = try KeyPair.generate()
        // Nothing needs the ephemeral secret once the key is derived.
        defer { ephemeral.secretKey.zeroInPlace() }
        let key = try derive(
            secret: ephemeral.secretKey, peer: recipient, ephemeral: ephemeral.publicKey, recipient: recipient)
        return KeyEncryptionKey(ephemeralPublicKey: ephemeral.publicKey, recipient: recipient, key: key)
    }

    /// Recomputes, with the recipient's key pair, the key that `ephemeral` agreed:
    /// one X25519 operation. A forged ephemeral key gives an unrelated key (so the
    /// wrapped key fails authentication) or, for a low-order point, `.authenticationFailure`.
    package static func recover(ephemeral: PublicKey, keyPair: KeyPair) throws(CryptoError) -> SecureBytes {
        try derive(secret: keyPair.secretKey, peer: ephemeral, ephemeral: ephemeral, recipient: keyPair.publicKey)
    }

    /// Zeroes the key; the object is useless afterwards.
    package func zero() {
        key.zeroInPlace()
    }

    private static func derive(
        secret: SecureBytes, peer: PublicKey, ephemeral: PublicKey, recipient: PublicKey
    ) throws(CryptoError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard secret.count == KeyPair.secretKeyByteCount else {
            throw .invalidLength(what: "secret key", expected: KeyPair.secretKeyByteCount, actual: secret.count)
        }
        let shared = try CryptoError.mapping { () throws(SecureMemoryError) in try SecureBytes.zeroed(count: Int(crypto_scalarmult_bytes())) }
        defer { shared.zeroInPlace() }
        let result = shared.withUnsafeMutableBytes { out in
            secret.withUnsafeBytes { sk in
                crypto_scalarmult(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), sk.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    peer.bytes)
            }
        }
        // libsodium refuses a low-order peer point (an all-zero shared secret).
        guard result == 0 else { throw .authenticationFailure }
        return try KeyedHash.hash(label + ephemeral.bytes + recipient.bytes, key: shared, outputLength: AEAD.keyByteCount)
    }
}
