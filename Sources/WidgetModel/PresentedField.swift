/// A field as a host sees it: `{"value": …, "privacy"?: …, "redacted"?: true, "role"?: …,
/// "range"?: […], "style"?: …}`.
///
/// A replaced field carries only the placeholder's value for its name (or null) and
/// `redacted: true`: nothing derived from the real value, not its type nor its length.
/// It keeps its role and date style, which say how it is drawn (DESIGN §12: a redacted
/// gauge is drawn empty, a redacted date not at all); a gauge's range is the stand-in's,
/// since a provider's bounds may say something of the value.
public struct PresentedField: Sendable, Hashable {
    /// The value shown.
    public var value: JSONValue
    /// The field's privacy marker, for fields shown as stored.
    public var privacy: Privacy?
    /// True when the value shown is not the real one.
    public var redacted: Bool
    /// What the field is on a drawn widget.
    public var role: FieldRole?
    /// A gauge's bounds as stored (nil: `[0, 1]`).
    public var range: GaugeRange?
    /// How a date is drawn.
    public var style: DateStyle?

    /// Makes a presented field.
    public init(
        value: JSONValue, privacy: Privacy? = nil, redacted: Bool = false, role: FieldRole? = nil, range: GaugeRange? = nil,
        style: DateStyle? = nil
    ) {
        self.value = value
        self.privacy = privacy
        self.redacted = redacted
        self.role = role
        self.range = range
        self.style = style
    }

    /// A field shown as stored.
    public static func shown(_ field: Field) -> PresentedField {
        PresentedField(value: field.value, privacy: field.privacy, role: field.role, range: field.range, style: field.style)
    }

    /// A field whose value is hidden: the stand-in's value (or null when there is none),
    /// drawn in the role and style given.
    ///
    /// Takes only the stand-in and the layout, never the real field, so that the real
    /// value cannot leak.
    public static func replaced(by standIn: Field?, role: FieldRole? = nil, style: DateStyle? = nil) -> PresentedField {
        PresentedField(value: standIn?.value ?? .null, redacted: true, role: role, range: standIn?.range, style: style)
    }
}

extension PresentedField: Codable {
    private enum CodingKeys: String, CodingKey {
        case value, privacy, redacted, role, range, style
    }

    /// Decodes the wire shape; absent `redacted` means false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
        privacy = try container.decodeIfPresent(Privacy.self, forKey: .privacy)
        redacted = try container.decodeIfPresent(Bool.self, forKey: .redacted) ?? false
        role = try container.decodeIfPresent(FieldRole.self, forKey: .role)
        range = try container.decodeIfPresent(GaugeRange.self, forKey: .range)
        style = try container.decodeIfPresent(DateStyle.self, forKey: .style)
    }

    /// Encodes `value` always, `privacy`, `role`, `range` and `style` when set, and
    /// `redacted` only when true.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(privacy, forKey: .privacy)
        if redacted { try container.encode(true, forKey: .redacted) }
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(range, forKey: .range)
        try container.encodeIfPresent(style, forKey: .style)
    }
}
