import Glibc

/// A fixed-capacity byte buffer for secrets, zeroed when released: a passcode as it is
/// read, and a request that carries one as it is assembled.
///
/// It never grows (growing would leave a copy behind), is locked in memory where the
/// limit allows, and is wiped with `explicit_bzero` so the compiler cannot drop the
/// wipe. It has no `description` and does not convert to `String`. The client library
/// and widgetctl share it (`package`); hosts hand passcodes over as ``Passcode``.
package final class ZeroingBuffer {
    /// The most bytes a buffer made with `init()` holds: far beyond any passcode.
    package static let defaultCapacity = 4096

    private let storage: UnsafeMutableRawBufferPointer
    /// How many bytes are in use.
    package private(set) var count = 0

    /// An empty buffer of `capacity` bytes.
    package init(capacity: Int = ZeroingBuffer.defaultCapacity) {
        storage = .allocate(byteCount: max(capacity, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        // Best effort: keeps the secret out of swap; failing is not worth refusing to run.
        _ = mlock(storage.baseAddress!, storage.count)
    }

    deinit {
        wipe()
        munlock(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    /// The bytes' capacity.
    package var capacity: Int { storage.count }

    /// Whether nothing is stored.
    package var isEmpty: Bool { count == 0 }

    /// The last byte, if any.
    package var last: UInt8? { count > 0 ? storage[count - 1] : nil }

    /// Appends one byte; returns false when the buffer is full.
    @discardableResult
    package func append(_ byte: UInt8) -> Bool {
        guard count < storage.count else { return false }
        storage[count] = byte
        count += 1
        return true
    }

    /// Appends bytes; returns false (appending nothing) when they do not fit.
    @discardableResult
    package func append(contentsOf bytes: some Collection<UInt8>) -> Bool {
        guard count + bytes.count <= storage.count else { return false }
        for byte in bytes {
            storage[count] = byte
            count += 1
        }
        return true
    }

    /// Appends the bytes of another secret; returns false (appending nothing) when they do not fit.
    @discardableResult
    package func append(_ other: ZeroingBuffer) -> Bool {
        other.withUnsafeBytes { append(contentsOf: $0) }
    }

    /// Appends bytes as the inside of a JSON string (RFC 8259 escapes); returns false
    /// when they did not all fit (worst case six bytes each, `\u00XX`).
    @discardableResult
    package func appendJSONStringContents(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let hex = Array("0123456789abcdef".utf8)
        var fitted = true
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                fitted = append(contentsOf: [UInt8(ascii: "\\"), byte]) && fitted
            case 0..<0x20:
                fitted = append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]) && fitted
            default:
                fitted = append(byte) && fitted
            }
        }
        return fitted
    }

    /// Drops trailing bytes, zeroing them.
    package func removeLast(_ n: Int) {
        let n = min(n, count)
        explicit_bzero(storage.baseAddress! + (count - n), n)
        count -= n
    }

    /// Calls `body` with the stored bytes; they must not escape it.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// Whether two secrets hold the same bytes, in time independent of where they differ.
    package func hasSameBytes(as other: ZeroingBuffer) -> Bool {
        guard count == other.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<count { difference |= storage[index] ^ other.storage[index] }
        return difference == 0
    }

    /// Zeroes the whole capacity and forgets the contents.
    package func wipe() {
        explicit_bzero(storage.baseAddress!, storage.count)
        count = 0
    }
}
