/// `Array.withUnsafeBytes` is `rethrows`, which erases a typed error to `any Error`;
/// this keeps the caller's error type.
extension Array where Element == UInt8 {
    @inline(__always)
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }
}

/// Runs a crypto operation, mapping its error to a store error (`StoreError.init(_:)`).
@inline(__always)
func crypto<R>(_ body: () throws(CryptoError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}
