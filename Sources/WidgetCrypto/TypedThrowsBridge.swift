/// `Array.withUnsafeBytes` is `rethrows`, which erases a typed error to `any Error`.
/// These helpers keep the caller's error type, so that the public API can say
/// exactly what it throws.
extension Array where Element == UInt8 {
    @inline(__always)
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }

    @inline(__always)
    mutating func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeMutableBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }
}
