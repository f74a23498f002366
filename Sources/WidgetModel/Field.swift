/// One named value of an entry or placeholder: `{"value": any JSON, "privacy"?: …}`.
public struct Field: Sendable, Hashable {
    /// The value, any JSON.
    public var value: JSONValue
    /// Whether the field is sensitive, public, or (nil) ordinary.
    public var privacy: Privacy?

    /// Makes a field.
    public init(value: JSONValue, privacy: Privacy? = nil) {
        self.value = value
        self.privacy = privacy
    }
}

extension Field: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case value, privacy
    }

    /// Decodes a field, rejecting unknown keys; `"privacy": null` counts as absent.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.value) else {
            throw ModelDecodingFailure(decoder.codingPath, "missing \"value\"")
        }
        value = try container.decode(JSONValue.self, forKey: .value)
        privacy = try container.decodeIfPresent(Privacy.self, forKey: .privacy)
    }

    /// Encodes `value` always and `privacy` only when set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(privacy, forKey: .privacy)
    }
}

extension KeyedDecodingContainer {
    /// Decodes a `fields` object, saying plainly when it is not an object of fields.
    /// A `Decoder` does not tell the keys' order: the names come sorted.
    func decodeFields(forKey key: Key, in decoder: any Decoder) throws -> FieldList<Field> {
        do {
            return FieldList(sorting: try decode([String: Field].self, forKey: key))
        } catch DecodingError.typeMismatch(_, let context)
            where context.codingPath.count == decoder.codingPath.count + 1 {
            throw ModelDecodingFailure(
                context.codingPath, "must be an object mapping field names to {\"value\": …}")
        }
    }
}
