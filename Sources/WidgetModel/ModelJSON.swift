#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decoding model types from raw JSON bytes without copying them first.
enum ModelJSON {
    /// Decodes `type` from bytes the caller owns (for example a locked, zeroed-on-release
    /// buffer holding a decrypted body), mapping every failure to `InvalidTimeline`.
    ///
    /// The bytes are wrapped, not copied: `Data(bytesNoCopy:…, deallocator: .none)`.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws(InvalidTimeline) -> T {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw InvalidTimeline(reason: "is empty; expected a JSON object")
        }
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw InvalidTimeline(decoding: error)
        }
    }
}
