/// Any JSON value, as a field's `value` may be (DESIGN §2).
///
/// Numbers keep Swift's `Double`; JSON has no integers of its own. Non-finite
/// numbers cannot be encoded and are rejected by validation.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; only finite ones pass validation.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; key order is not kept (encode with `.sortedKeys` for stable bytes).
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    /// Decodes any JSON value.
    ///
    /// `Decoder` cannot tell which kind of value comes next, so each kind is tried in
    /// turn; a failed try costs a thrown error, so the commonest kinds go first.
    /// Booleans and numbers stay apart: `JSONDecoder` decodes neither as the other.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
