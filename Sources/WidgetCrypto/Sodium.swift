import CSodium

/// Initialises libsodium exactly once, before any other call into it.
///
/// Every public entry point of this module calls `ensureInitialized()`, so callers
/// never need to remember to do it. Swift runs a static initialiser once even when
/// several threads race to it, which is the guarantee `sodium_init` asks for.
package enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    /// Makes sure libsodium is ready; throws if it cannot be.
    ///
    /// The corresponding C function is `sodium_init`.
    package static func ensureInitialized() throws(CryptoError) {
        guard initialized else { throw .initializationFailed }
    }

    /// Fills a buffer with bytes from the kernel's CSPRNG.
    ///
    /// The corresponding C function is `randombytes_buf`.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try ensureInitialized()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }

    /// Random non-secret bytes (nonces, salts, file-name suffixes).
    package static func randomBytes(count: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withMutableBytes { (buffer) throws(CryptoError) in try fillRandom(buffer) }
        return bytes
    }

    /// Compares two buffers in time that depends only on their length.
    ///
    /// The corresponding C function is `sodium_memcmp`. Buffers of different
    /// lengths compare unequal (their lengths are not secret).
    package static func constantTimeEquals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return a.count == 0 }
        return sodium_memcmp(pa, pb, a.count) == 0
    }

    /// ``constantTimeEquals(_:_:)-(UnsafeRawBufferPointer,_)`` of two byte collections in
    /// ordinary memory: MACs, digests and tags, whose lengths are public.
    package static func constantTimeEquals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        let compared = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in constantTimeEquals(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if let compared = compared ?? nil { return compared }
        return Array(a).withUnsafeBytes { x in Array(b).withUnsafeBytes { y in constantTimeEquals(x, y) } }
    }

    /// Turns a libsodium return code into a typed error: 0 is success.
    static func check(_ result: Int32, _ operation: String) throws(CryptoError) {
        guard result == 0 else { throw .operationFailed(operation) }
    }
}
