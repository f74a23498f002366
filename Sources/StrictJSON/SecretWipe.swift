import Glibc

/// Zeroes memory that held a secret (a passcode, decrypted content) so that the zeroing
/// cannot be optimised away.
///
/// A `memset` or `initializeMemory(repeating: 0)` just before the memory is freed is a
/// dead store to the compiler, which may drop it; `explicit_bzero` is never dropped.
/// Here, in the lowest of the pure modules, so that every module above it (the model,
/// Varlink, the transport, the daemon, the client) wipes through this one helper
/// without linking libsodium.
package enum SecretWipe {
    /// Zeroes `count` bytes at `pointer` (nothing when `pointer` is nil).
    package static func zero(_ pointer: UnsafeMutableRawPointer?, count: Int) {
        guard let pointer, count > 0 else { return }
        explicit_bzero(pointer, count)
    }

    /// Zeroes a whole buffer.
    package static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        zero(buffer.baseAddress, count: buffer.count)
    }

    /// Zeroes an array's elements in place (its storage is not reallocated).
    package static func zero(_ array: inout [UInt8]) {
        array.withUnsafeMutableBytes { zero($0) }
    }
}
