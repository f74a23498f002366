/// A field as a host sees it: `{"value": …, "privacy"?: …, "redacted"?: true}`.
///
/// A replaced field carries only the placeholder's value for its name (or null) and
/// `redacted: true`: nothing derived from the real value, not its type nor its length.
public struct PresentedField: Sendable, Hashable {
    /// The value shown.
    public var value: JSONValue
    /// The field's privacy marker, for fields shown as stored.
    public var privacy: Privacy?
    /// True when the value shown is not the real one.
    public var redacted: Bool

    /// Makes a presented field.
    public init(value: JSONValue, privacy: Privacy? = nil, redacted: Bool = false) {
        self.value = value
        self.privacy = privacy
        self.redacted = redacted
    }

    /// A field shown as stored.
    public static func shown(_ field: Field) -> PresentedField {
        PresentedField(value: field.value, privacy: field.privacy)
    }

    /// A field whose value is hidden: the stand-in value, or null when there is none.
    ///
    /// Takes only the stand-in, never the real field, so that the real value cannot leak.
    public static func replaced(by standIn: JSONValue?) -> PresentedField {
        PresentedField(value: standIn ?? .null, redacted: true)
    }
}

extension PresentedField: Codable {
    private enum CodingKeys: String, CodingKey {
        case value, privacy, redacted
    }

    /// Decodes the wire shape; absent `redacted` means false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
        privacy = try container.decodeIfPresent(Privacy.self, forKey: .privacy)
        redacted = try container.decodeIfPresent(Bool.self, forKey: .redacted) ?? false
    }

    /// Encodes `value` always, `privacy` when set, and `redacted` only when true.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(privacy, forKey: .privacy)
        if redacted { try container.encode(true, forKey: .redacted) }
    }
}
