import SecureMemory
import WidgetCrypto

/// What a `Watch` remembers of the last reply it sent: a keyed BLAKE2b digest of the
/// reply's bytes, enough to tell whether the next presentation differs.
///
/// The presentation itself may hold decrypted content; kept for the watch's life it
/// would wait in plain Swift strings, never zeroed, past a lock's purge too. The
/// digest tells nothing of the content: its key is random per process and lives in
/// secure memory, so a digest of a short, guessable text cannot be tried offline from
/// a memory image. Equal replies (the encoder is deterministic) give equal digests;
/// different ones differ but with BLAKE2b's collision probability.
struct PresentationDigest: Equatable {
    private let bytes: [UInt8]

    /// This process's digest key.
    private static let key: SecureBytes? = try? SecureBytes.random(count: 32)

    /// The digest of an encoded reply; throws if the key or the hash is unavailable.
    init(of reply: [UInt8]) throws(CryptoError) {
        guard let key = Self.key else { throw CryptoError.initializationFailed }
        var digest = [UInt8](repeating: 0, count: 32)
        let hashed: Result<Void, CryptoError> = digest.withUnsafeMutableBytes { out in
            Result { () throws(CryptoError) in try KeyedHash.publicHash(reply, key: key, into: out) }
        }
        try hashed.get()
        bytes = digest
    }
}
