import SecureMemory
import WidgetCrypto

/// Runs a crypto operation, mapping its error to a store error (`StoreError.init(_:)`).
@inline(__always)
func crypto<R>(_ body: () throws(CryptoError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}

/// Runs a secure-memory operation, mapping its error to a store error (`StoreError.init(_:)`).
@inline(__always)
func secureMemory<R>(_ body: () throws(SecureMemoryError) -> R) throws(StoreError) -> R {
    do { return try body() } catch { throw StoreError(error) }
}
