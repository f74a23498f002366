import FoundationEssentials

/// Appends fixed-width little-endian fields to a byte array (the on-disk formats).
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    /// A writer that will hold about `capacity` bytes, so that appending does not grow
    /// (and copy) the array step by step.
    package init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    package mutating func u8(_ v: UInt8) { bytes.append(v) }
    package mutating func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func raw(_ v: some Sequence<UInt8>) { bytes.append(contentsOf: v) }
    /// A length-prefixed (u32) block.
    package mutating func block(_ v: [UInt8]) {
        u32(UInt32(v.count))
        bytes.append(contentsOf: v)
    }
    /// An optional date as a presence byte and the IEEE bits of its Unix time.
    package mutating func date(_ v: Date?) {
        u8(v == nil ? 0 : 1)
        u64((v?.timeIntervalSince1970 ?? 0).bitPattern)
    }
}

/// Reads what `ByteWriter` wrote; running out of bytes throws `truncated`.
package struct ByteReader {
    /// Why reading stopped.
    package enum Failure: Error { case truncated, malformed }

    private let bytes: UnsafeRawBufferPointer
    package private(set) var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var isAtEnd: Bool { offset == bytes.count }
    package var remaining: Int { bytes.count - offset }

    package mutating func raw(_ count: Int) throws(Failure) -> [UInt8] {
        guard count >= 0 else { throw .malformed }
        guard count <= remaining else { throw .truncated }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(Failure) -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else { throw .truncated }
        var value: T = 0
        for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
        offset += size
        return value
    }

    package mutating func u8() throws(Failure) -> UInt8 { try integer(UInt8.self) }
    package mutating func u16() throws(Failure) -> UInt16 { try integer(UInt16.self) }
    package mutating func u32() throws(Failure) -> UInt32 { try integer(UInt32.self) }
    package mutating func u64() throws(Failure) -> UInt64 { try integer(UInt64.self) }

    /// A u32-length-prefixed block no longer than `limit`.
    package mutating func block(limit: Int) throws(Failure) -> [UInt8] {
        let count = Int(try u32())
        guard count <= limit else { throw count > remaining ? .truncated : .malformed }
        return try raw(count)
    }

    package mutating func date() throws(Failure) -> Date? {
        let present = try u8()
        let bits = try u64()
        switch present {
        case 0: return nil
        case 1:
            let t = Double(bitPattern: bits)
            guard t.isFinite else { throw .malformed }
            return Date(timeIntervalSince1970: t)
        default: throw .malformed
        }
    }
}
