/// What a field is on a widget drawn from a template (DESIGN §12): a host draws roles,
/// never field names, once an entry has any.
public enum FieldRole: String, Sendable, Hashable, CaseIterable {
    /// The headline.
    case title
    /// The main figure or text, drawn largest.
    case value
    /// Secondary text; several are drawn in field order.
    case detail
    /// A freedesktop icon name, drawn from the host's icon theme.
    case icon
    /// A number within the field's `range`, drawn as a ring or a bar.
    case gauge
    /// An RFC 3339 date drawn in the field's `style`, ticking on the host.
    case date

    /// The words an error lists the known roles in.
    static let known = #""title", "value", "detail", "icon", "gauge" or "date""#
}

extension FieldRole: Codable {
    /// Decodes the wire spelling; an unknown role is rejected without being echoed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let text = try? container.decode(String.self), let value = FieldRole(rawValue: text) else {
            throw ModelDecodingFailure(decoder.codingPath, "must be \(Self.known)")
        }
        self = value
    }

    /// Encodes the wire spelling.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
