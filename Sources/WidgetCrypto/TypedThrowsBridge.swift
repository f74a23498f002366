/// `Array.withUnsafeBytes` is `rethrows`, which erases a typed error to `any Error`.
/// These helpers keep the caller's error type, so that the public API can say
/// exactly what it throws. Public so that the store, which types its errors the same
/// way, uses these rather than a copy.
extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that keeps `body`'s error type.
    @inlinable
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }

    /// `withUnsafeMutableBytes` that keeps `body`'s error type.
    @inlinable
    package mutating func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeMutableBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }
}
