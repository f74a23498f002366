import FoundationEssentials
import StrictJSON

/// Bytes that are zeroed when the last reference goes away.
///
/// A received message can hold a passcode; `[UInt8]` and `Data` would leave copies
/// behind in freed memory. The bytes are immutable after creation, which is why the
/// class can be shared across threads.
final class WipingBuffer: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a new buffer and zeroes the source array's storage.
    init(_ bytes: consuming [UInt8]) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeMutableBytes { source in
            storage.copyMemory(from: UnsafeRawBufferPointer(source))
            SecretWipe.zero(source)
        }
        self.storage = storage
        self.count = bytes.count
    }

    /// Copies `bytes` (a view the caller wipes) into a new buffer.
    init(copying bytes: UnsafeRawBufferPointer) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(bytes.count, 1), alignment: 1)
        storage.copyMemory(from: bytes)
        self.storage = storage
        self.count = bytes.count
    }

    /// Takes `storage` (from `UnsafeMutableRawBufferPointer.allocate`, and no one
    /// else's any more) as the buffer, without a copy: zeroed and deallocated with it.
    init(adopting storage: UnsafeMutableRawBufferPointer) {
        self.storage = storage
        self.count = storage.count
    }

    /// The number of meaningful bytes.
    let count: Int

    deinit {
        SecretWipe.zero(storage)
        storage.deallocate()
    }

    /// Runs `body` with the bytes in place. The view must not escape `body`.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Runs `body` with a `Data` view of the bytes that does not copy them.
    ///
    /// The view must not escape `body`.
    func withData<R>(_ body: (Data) throws -> R) rethrows -> R {
        let data = Data(bytesNoCopy: storage.baseAddress!, count: count, deallocator: .none)
        return try body(data)
    }
}
