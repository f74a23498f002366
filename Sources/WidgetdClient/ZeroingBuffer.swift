import Glibc

/// A fixed-capacity byte buffer for secrets, zeroed when released.
///
/// It never grows (growing would leave a copy behind), is locked in memory where the
/// limit allows, and is wiped with `explicit_bzero` so the compiler cannot drop the
/// wipe. The client's requests that carry a passcode are assembled in one.
final class ZeroingBuffer {
    private let storage: UnsafeMutableRawBufferPointer
    /// How many bytes are in use.
    private(set) var count = 0

    /// An empty buffer of `capacity` bytes.
    init(capacity: Int) {
        storage = .allocate(byteCount: max(capacity, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        // Best effort: keeps the secret out of swap; failing is not worth refusing to run.
        _ = mlock(storage.baseAddress!, storage.count)
    }

    deinit {
        explicit_bzero(storage.baseAddress!, storage.count)
        munlock(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    /// Appends bytes; traps when they do not fit (the capacity is computed beforehand).
    func append(contentsOf bytes: some Collection<UInt8>) {
        precondition(count + bytes.count <= storage.count, "ZeroingBuffer capacity computed too small")
        for byte in bytes {
            storage[count] = byte
            count += 1
        }
    }

    /// Appends bytes as the inside of a JSON string (RFC 8259 escapes).
    func appendJSONStringContents(_ bytes: UnsafeRawBufferPointer) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0..<0x20: append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: append(contentsOf: CollectionOfOne(byte))
            }
        }
    }

    /// Calls `body` with the stored bytes; they must not escape it.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }
}
