import Glibc

/// A fixed-capacity byte buffer for a passcode, wiped when released.
///
/// It never grows (growing would leave a copy behind), is locked in memory where the
/// limit allows, and is zeroed with `explicit_bzero` in `deinit` so the compiler
/// cannot drop the wipe. It has no `description` and does not convert to `String`.
final class SecretBuffer {
    /// The most bytes a buffer made with `init()` holds: far beyond any passcode.
    static let defaultCapacity = 4096

    private let storage: UnsafeMutableRawBufferPointer
    /// How many bytes are in use.
    private(set) var count = 0

    /// An empty buffer of `capacity` bytes.
    init(capacity: Int = SecretBuffer.defaultCapacity) {
        storage = .allocate(byteCount: max(capacity, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        // Best effort: keeps the passcode out of swap; failing is not worth refusing to run.
        _ = mlock(storage.baseAddress!, storage.count)
    }

    deinit {
        wipe()
        munlock(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    /// The bytes' capacity.
    var capacity: Int { storage.count }

    /// Whether nothing is stored.
    var isEmpty: Bool { count == 0 }

    /// Appends one byte; returns false when the buffer is full.
    @discardableResult
    func append(_ byte: UInt8) -> Bool {
        guard count < storage.count else { return false }
        storage[count] = byte
        count += 1
        return true
    }

    /// Appends bytes; returns false (appending nothing) when they do not fit.
    @discardableResult
    func append(contentsOf bytes: some Collection<UInt8>) -> Bool {
        guard count + bytes.count <= storage.count else { return false }
        for byte in bytes { storage[count] = byte; count += 1 }
        return true
    }

    /// Appends the bytes of another secret.
    @discardableResult
    func append(_ other: SecretBuffer) -> Bool {
        other.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// Drops trailing bytes, zeroing them.
    func removeLast(_ n: Int) {
        let n = min(n, count)
        explicit_bzero(storage.baseAddress! + (count - n), n)
        count -= n
    }

    /// The last byte, if any.
    var last: UInt8? { count > 0 ? storage[count - 1] : nil }

    /// Calls `body` with the stored bytes; do not let them escape.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Whether two secrets hold the same bytes, in time independent of where they differ.
    func hasSameBytes(as other: SecretBuffer) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= storage[index] ^ other.storage[index] }
        return difference == 0
    }

    /// Zeroes the whole capacity and forgets the contents.
    func wipe() {
        explicit_bzero(storage.baseAddress!, storage.count)
        count = 0
    }
}
