import CTPM2
import SecureMemory
import WidgetCrypto

/// A C structure that carries a secret to or from ESAPI (`TPM2B_SENSITIVE_CREATE`,
/// `TPM2B_AUTH`, `TPM2B_MAX_NV_BUFFER`), placed in secure memory instead of on the stack
/// and zeroed when `body` returns.
enum SecureStructure {
    static func with<T, Result>(
        _: T.Type, _ body: (UnsafeMutablePointer<T>) throws(TPM2Error) -> Result
    ) throws(TPM2Error) -> Result {
        let size = MemoryLayout<T>.size, alignment = MemoryLayout<T>.alignment
        let storage: SecureBytes
        do { storage = try SecureBytes.zeroed(count: size + alignment) } catch { throw .crypto(CryptoError(error)) }
        return try storage.withUnsafeMutableBytes { (raw) throws(TPM2Error) -> Result in
            // All-zero bytes are a valid value of these C structures (empty buffers).
            let aligned = raw.baseAddress!.alignedUp(toMultipleOf: alignment)
            defer { ctpm2_zero(aligned, size) }
            return try body(aligned.bindMemory(to: T.self, capacity: 1))
        }
    }

    /// Copies a secret into a TPM2B's size and buffer, checking it fits.
    static func fill<Buffer>(
        _ buffer: inout Buffer, size: inout UInt16, from secret: SecureBytes, what: String
    ) throws(TPM2Error) {
        let capacity = MemoryLayout<Buffer>.size
        guard secret.count <= capacity else { throw .invalidLength(what: what, expected: 0...capacity, actual: secret.count) }
        withUnsafeMutableBytes(of: &buffer) { target in
            secret.withUnsafeBytes { source in target.copyMemory(from: source) }
        }
        size = UInt16(secret.count)
    }

    /// A secure copy of the first `size` bytes of a TPM2B's buffer.
    static func copy<Buffer>(_ buffer: inout Buffer, size: UInt16) throws(TPM2Error) -> SecureBytes {
        let count = min(Int(size), MemoryLayout<Buffer>.size)
        let copied = withUnsafeBytes(of: &buffer) { source in
            Result { () throws(SecureMemoryError) -> SecureBytes in
                try SecureBytes(copying: UnsafeRawBufferPointer(rebasing: source.prefix(count)))
            }
        }
        do { return try copied.get() } catch { throw .crypto(CryptoError(error)) }
    }
}
