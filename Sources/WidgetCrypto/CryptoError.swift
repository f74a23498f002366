import SecureMemory

/// Why a cryptographic operation failed.
///
/// No case carries key material or plaintext, so an error can be logged as is.
package enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A ciphertext, sealed box or MAC did not verify: it was tampered with,
    /// truncated, or opened with the wrong key or associated data.
    case authenticationFailure
    /// `sodium_malloc` returned NULL: the process ran out of guarded, locked pages
    /// (about 16,000 live allocations, or `RLIMIT_MEMLOCK`).
    case outOfSecureMemory
    /// An input had the wrong length (a key, nonce or salt).
    case invalidLength(what: String, expected: Int, actual: Int)
    /// `sodium_init` failed; nothing in this module can be used.
    case initializationFailed
    /// A libsodium call returned an error that is not an authentication failure
    /// (for example Argon2id could not allocate its memory).
    case operationFailed(String)

    package var description: String {
        switch self {
        case .authenticationFailure:
            "authentication failed: the data was altered or the key is wrong"
        case .outOfSecureMemory:
            SecureMemoryError.outOfSecureMemory.description
        case .invalidLength(let what, let expected, let actual):
            "\(what) must be \(expected) bytes, got \(actual)"
        case .initializationFailed:
            "libsodium could not be initialised (sodium_init failed)"
        case .operationFailed(let operation):
            "libsodium operation \(operation) failed"
        }
    }

    /// A secure-memory failure as a crypto error: the same cases, the same words.
    package init(_ error: SecureMemoryError) {
        switch error {
        case .outOfSecureMemory: self = .outOfSecureMemory
        case .initializationFailed: self = .initializationFailed
        }
    }

    /// Runs a secure-memory operation (allocating or growing a `SecureBytes`) inside
    /// crypto code, its failure as a `CryptoError`.
    @inlinable
    package static func mapping<Result>(_ body: () throws(SecureMemoryError) -> Result) throws(CryptoError) -> Result {
        do { return try body() } catch { throw CryptoError(error) }
    }
}
