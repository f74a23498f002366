/// A widget's identity: `PROVIDER/KIND` with an optional `#INSTANCE` (DESIGN §2).
///
/// Ids are printable ASCII, at most 255 bytes, with no `/` inside the provider or
/// kind, no `..` and no NUL. A timeline is stored per full id.
public struct WidgetID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The longest id accepted, in bytes.
    public static let maximumLength = 255

    /// Why an id was rejected.
    public enum Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        /// The id is empty.
        case empty
        /// The id is longer than `maximumLength` bytes (its length is given).
        case tooLong(Int)
        /// The id has a byte outside printable ASCII (`!`…`~`): NUL, space, control, non-ASCII.
        case notPrintableASCII
        /// The id is not `PROVIDER/KIND[#INSTANCE]`: no `/`, more than one, or `#` in the provider.
        case missingKind
        /// The provider, kind or instance is empty.
        case emptyComponent
        /// The id contains `..`, which could climb out of a directory if used in a path.
        case dotDot

        /// A sentence for the caller; it never repeats the id itself.
        public var description: String {
            switch self {
            case .empty: "widget id is empty"
            case .tooLong(let n): "widget id is \(n) bytes; at most \(WidgetID.maximumLength) are allowed"
            case .notPrintableASCII: "widget id must be printable ASCII"
            case .missingKind: "widget id must be PROVIDER/KIND[#INSTANCE]"
            case .emptyComponent: "widget id has an empty provider, kind or instance"
            case .dotDot: "widget id must not contain '..'"
            }
        }
    }

    /// The provider id, e.g. `com.example.weather`.
    public let provider: String
    /// The widget kind, e.g. `forecast`.
    public let kind: String
    /// The optional instance, e.g. `lock-1`.
    public let instance: String?

    /// The full id as written on the wire.
    public var description: String {
        instance.map { "\(provider)/\(kind)#\($0)" } ?? "\(provider)/\(kind)"
    }

    /// Parses and validates an id.
    public init(_ text: String) throws(Invalid) {
        // On the bytes, not with `String.contains`/`split` (generic string processing
        // shows in the daemon's CPU profile of a write); the checks run in a fixed order,
        // so each id gets one defined error.
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= Self.maximumLength else { throw .tooLong(bytes.count) }
        guard bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { throw .notPrintableASCII }
        let dot = UInt8(ascii: "."), slashByte = UInt8(ascii: "/"), hashByte = UInt8(ascii: "#")
        guard !zip(bytes, bytes.dropFirst()).contains(where: { $0 == dot && $1 == dot }) else { throw .dotDot }
        guard let slash = bytes.firstIndex(of: slashByte), !bytes[(slash + 1)...].contains(slashByte) else {
            throw .missingKind
        }
        let rest = bytes[(slash + 1)...]
        let hash = rest.firstIndex(of: hashByte)
        let kindBytes = rest[..<(hash ?? rest.endIndex)]
        let instanceBytes = hash.map { rest[($0 + 1)...] }
        guard slash > 0, !kindBytes.isEmpty, instanceBytes?.isEmpty != true else { throw .emptyComponent }
        guard !bytes[..<slash].contains(hashByte) else { throw .missingKind }
        provider = String(decoding: bytes[..<slash], as: UTF8.self)
        kind = String(decoding: kindBytes, as: UTF8.self)
        instance = instanceBytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Validates a provider id on its own (no `/`, `#` or `..`; printable ASCII).
    public static func isValidProviderID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return !bytes.isEmpty && bytes.count <= maximumLength
            && bytes.allSatisfy { $0 >= 0x21 && $0 <= 0x7E && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "#") }
            && !text.contains("..")
    }

    /// Orders ids by their wire text, for stable listings.
    public static func < (a: WidgetID, b: WidgetID) -> Bool { a.description < b.description }
}

extension WidgetID: Codable {
    /// Decodes and validates an id from a JSON string.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the id as its wire text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
