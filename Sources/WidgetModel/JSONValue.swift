/// Any JSON value, as a field's `value` may be (DESIGN §2).
///
/// Numbers keep their literal text (``JSONNumber``): a value is served exactly as its
/// provider sent it, and JSON has no integers or precision of its own.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its literal text.
    case number(JSONNumber)
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
    /// From a ``JSONTreeDecoder`` the value is taken whole, numbers exactly as written.
    /// Any other `Decoder` hands numbers over as `Double` only, so their text is the
    /// `Double`'s (a 30-digit integer comes back rounded): the daemon and `widgetctl`
    /// never read field values that way; tests use it as a reference reading.
    ///
    /// `Decoder` cannot tell which kind of value comes next, so each kind is tried in
    /// turn; a failed try costs a thrown error, so the commonest kinds go first.
    /// Booleans and numbers stay apart: `JSONDecoder` decodes neither as the other.
    public init(from decoder: any Decoder) throws {
        if let tree = decoder as? any JSONTreeSource {
            self = tree.treeValue
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Double.self), value.isFinite {
            self = .number(JSONNumber(value))
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
    ///
    /// Into a ``JSONTreeEncoder`` the value goes whole, numbers as their text. Any other
    /// `Encoder` takes numbers only as `Double`: a number whose text is not exactly the
    /// `Double`'s shortest form (`1E5`, `0.10`, a 30-digit integer) cannot go there
    /// unchanged, and is refused with an `EncodingError` rather than rounded.
    public func encode(to encoder: any Encoder) throws {
        if let tree = encoder as? any JSONTreeSink {
            tree.store(self)
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            guard JSONNumber(value.doubleValue) == value else {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: encoder.codingPath, debugDescription: "this encoder would change the number's digits"))
            }
            try container.encode(value.doubleValue)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
