import SecureMemory
import WidgetCrypto

/// An error of the store or of one of its parts that carries the crypto layer's
/// failures (key derivation, allocation), so that each runs crypto calls the same way:
/// `try KeyError.crypto { () throws(CryptoError) in … }`.
package protocol CarriesCryptoError: Error {
    init(_ error: CryptoError)
}

extension CarriesCryptoError {
    /// A secure-memory failure, as the crypto layer's own allocations are mapped.
    package init(_ error: SecureMemoryError) { self.init(CryptoError(error)) }

    /// Runs a crypto call, its failure thrown as this error.
    @inline(__always)
    package static func crypto<R>(_ body: () throws(CryptoError) -> R) throws(Self) -> R {
        do { return try body() } catch { throw Self(error) }
    }

    /// Runs a secure-memory call (allocating a `SecureBytes`), its failure thrown as
    /// this error, as the crypto layer's own allocations are.
    @inline(__always)
    package static func secureMemory<R>(_ body: () throws(SecureMemoryError) -> R) throws(Self) -> R {
        do { return try body() } catch { throw Self(CryptoError(error)) }
    }
}

extension FileError: CarriesCryptoError {
    package init(_ error: CryptoError) { self = .crypto(error) }
}
