import CSodium
import SecureMemory

/// An X25519 public key. Public keys are not secret, so this is a plain value.
package struct PublicKey: Sendable, Hashable {
    /// Length in bytes.
    package static let byteCount = Int(crypto_box_publickeybytes())
    /// The raw key.
    package let bytes: [UInt8]

    /// Wraps raw key bytes, checking their length.
    package init(bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == Self.byteCount else {
            throw .invalidLength(what: "public key", expected: Self.byteCount, actual: bytes.count)
        }
        self.bytes = bytes
    }
}

/// An X25519 key pair for sealed boxes: the secret half lives in secure memory.
package struct KeyPair: @unchecked Sendable {
    /// Secret key length in bytes.
    package static let secretKeyByteCount = Int(crypto_box_secretkeybytes())
    /// The public half.
    package let publicKey: PublicKey
    /// The secret half.
    package let secretKey: SecureBytes

    /// Pairs a public key with its secret key after checking that they belong together.
    ///
    /// The check (`crypto_scalarmult_base`) catches a keybag whose public and secret
    /// keys were mixed up, which would otherwise only show as unreadable timelines.
    package init(publicKey: PublicKey, secretKey: SecureBytes) throws(CryptoError) {
        guard secretKey.count == Self.secretKeyByteCount else {
            throw .invalidLength(what: "secret key", expected: Self.secretKeyByteCount, actual: secretKey.count)
        }
        var derived = [UInt8](repeating: 0, count: PublicKey.byteCount)
        let result = secretKey.withUnsafeBytes { sk in
            crypto_scalarmult_base(&derived, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        try Sodium.check(result, "crypto_scalarmult_base")
        guard derived == publicKey.bytes else { throw .authenticationFailure }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private init(checkedPublicKey: PublicKey, secretKey: SecureBytes) {
        self.publicKey = checkedPublicKey
        self.secretKey = secretKey
    }

    /// A fresh random key pair.
    ///
    /// The corresponding C function is `crypto_box_keypair`.
    package static func generate() throws(CryptoError) -> KeyPair {
        try Sodium.ensureInitialized()
        let secret = try CryptoError.mapping { () throws(SecureMemoryError) in try SecureBytes.zeroed(count: secretKeyByteCount) }
        var publicBytes = [UInt8](repeating: 0, count: PublicKey.byteCount)
        let result = secret.withUnsafeMutableBytes { sk in
            crypto_box_keypair(&publicBytes, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        try Sodium.check(result, "crypto_box_keypair")
        return KeyPair(checkedPublicKey: try PublicKey(bytes: publicBytes), secretKey: secret)
    }
}
