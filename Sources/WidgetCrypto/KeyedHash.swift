import CSodium
import SecureMemory

/// Keyed BLAKE2b (`crypto_generichash` with a key): a MAC and a key-derivation function.
package enum KeyedHash {
    /// The shortest key accepted.
    package static let minimumKeyByteCount = Int(crypto_generichash_keybytes_min())
    /// The longest key accepted.
    package static let maximumKeyByteCount = Int(crypto_generichash_keybytes_max())

    /// Hashes `input` under `key`, producing `outputLength` (16…64) bytes in secure memory.
    ///
    /// The output is a secret whenever the key is (derived keys, MACs used for
    /// comparison); callers that need a public value (a file name) copy it out.
    /// The corresponding C function is `crypto_generichash`.
    package static func hash(
        _ input: UnsafeRawBufferPointer, key: SecureBytes, outputLength: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        try checkOutputLength(outputLength)
        let output = try CryptoError.mapping { () throws(SecureMemoryError) in try SecureBytes.zeroed(count: outputLength) }
        try output.withUnsafeMutableBytes { (out) throws(CryptoError) in try hash(input, key: key, into: out) }
        return output
    }

    /// Hashes a public input into `output` (16…64 bytes) for a public result such as a
    /// file name: no secure allocation, which would cost a `sodium_malloc` per call.
    package static func publicHash(_ input: [UInt8], key: SecureBytes, into output: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try input.withBytes { (i) throws(CryptoError) in try hash(i, key: key, into: output) }
    }

    /// `publicHash` of bytes the caller already holds in memory (a MAC over part of a buffer).
    package static func publicHash(
        _ input: UnsafeRawBufferPointer, key: SecureBytes, into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        try hash(input, key: key, into: output)
    }

    private static func checkOutputLength(_ count: Int) throws(CryptoError) {
        guard count >= Int(crypto_generichash_bytes_min()), count <= Int(crypto_generichash_bytes_max())
        else { throw .invalidLength(what: "BLAKE2b output", expected: 32, actual: count) }
    }

    /// `crypto_generichash` of `input` under `key` into `output`, whose size is the hash's.
    private static func hash(
        _ input: UnsafeRawBufferPointer, key: SecureBytes, into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        try Sodium.ensureInitialized()
        guard key.count >= minimumKeyByteCount, key.count <= maximumKeyByteCount else {
            throw .invalidLength(what: "BLAKE2b key", expected: 32, actual: key.count)
        }
        try checkOutputLength(output.count)
        let result = key.withUnsafeBytes { k in
            crypto_generichash(
                output.baseAddress!.assumingMemoryBound(to: UInt8.self), output.count,
                input.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(input.count),
                k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
        }
        try Sodium.check(result, "crypto_generichash")
    }

    /// Hashes a secret input.
    package static func hash(_ input: SecureBytes, key: SecureBytes, outputLength: Int = 32) throws(CryptoError) -> SecureBytes {
        try input.withUnsafeBytes { (i) throws(CryptoError) in try hash(i, key: key, outputLength: outputLength) }
    }

    /// Hashes a public input (a label, a widget id, a file's bytes).
    package static func hash(_ input: [UInt8], key: SecureBytes, outputLength: Int = 32) throws(CryptoError) -> SecureBytes {
        try input.withBytes { (i) throws(CryptoError) in try hash(i, key: key, outputLength: outputLength) }
    }

    /// Derives an independent subkey for one purpose, named by `label`.
    ///
    /// Distinct labels give unrelated keys, so a key used as a MAC key never also
    /// encrypts, and a compromise of one use does not reveal another.
    package static func deriveKey(from key: SecureBytes, label: String) throws(CryptoError) -> SecureBytes {
        try hash(Array(label.utf8), key: key, outputLength: 32)
    }
}
