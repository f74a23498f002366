/// One named value of an entry or placeholder: `{"value": any JSON, "privacy"?: …,
/// "role"?: …, "range"?: [min, max], "style"?: …}`.
public struct Field: Sendable, Hashable {
    /// The value, any JSON.
    public var value: JSONValue
    /// Whether the field is sensitive, public, or (nil) ordinary.
    public var privacy: Privacy?
    /// What the field is on a drawn widget (DESIGN §12); nil: data for custom hosts.
    public var role: FieldRole?
    /// A gauge's bounds; nil is `[0, 1]`. Only with role `gauge`.
    public var range: GaugeRange?
    /// How a date is drawn. Only with role `date`; nil draws it as `date`.
    public var style: DateStyle?

    /// Makes a field.
    public init(value: JSONValue, privacy: Privacy? = nil, role: FieldRole? = nil, range: GaugeRange? = nil, style: DateStyle? = nil) {
        self.value = value
        self.privacy = privacy
        self.role = role
        self.range = range
        self.style = style
    }

    /// The bounds a gauge is drawn within: its `range`, or `[0, 1]`.
    public var gaugeRange: GaugeRange { range ?? .unit }

    /// Its members besides the value.
    var layout: Layout {
        Layout(privacy: privacy, role: role, range: range, style: style)
    }

    /// A field's members besides its value: how a host lays it out, and whether it is private.
    struct Layout {
        var privacy: Privacy?
        var role: FieldRole?
        var range: GaugeRange?
        var style: DateStyle?

        /// What `TimelineValidator` refuses in the members themselves, whatever the
        /// value (DESIGN §12); nil when they fit together.
        var problem: String? {
            if range != nil, role != .gauge { return "\"range\" is only allowed with role \"gauge\"" }
            if style != nil, role != .date { return "\"style\" is only allowed with role \"date\"" }
            if let range {
                guard range.lowerBound.isFinite, range.upperBound.isFinite else { return "range: must be finite numbers" }
                guard range.lowerBound < range.upperBound else { return "range: is upside down; min must be less than max" }
            }
            return nil
        }
    }
}

extension Field: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case value, privacy, role, range, style
    }

    /// Decodes a field, rejecting unknown keys; a null member counts as absent.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.value) else {
            throw ModelDecodingFailure(decoder.codingPath, "missing \"value\"")
        }
        value = try container.decode(JSONValue.self, forKey: .value)
        privacy = try container.decodeIfPresent(Privacy.self, forKey: .privacy)
        role = try container.decodeIfPresent(FieldRole.self, forKey: .role)
        range = try container.decodeIfPresent(GaugeRange.self, forKey: .range)
        style = try container.decodeIfPresent(DateStyle.self, forKey: .style)
    }

    /// Encodes `value` always and the other members only when set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encodeIfPresent(privacy, forKey: .privacy)
        try container.encodeIfPresent(role, forKey: .role)
        try container.encodeIfPresent(range, forKey: .range)
        try container.encodeIfPresent(style, forKey: .style)
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
