import FoundationEssentials

/// The entry inside a presentation. In placeholder mode `date` and `relevance` are nil:
/// nothing from the timeline is shown.
public struct PresentedEntry: Sendable, Hashable {
    /// The entry's date, or nil for a placeholder.
    public var date: Date?
    /// The entry's relevance, or nil (always nil for a placeholder).
    public var relevance: Relevance?
    /// The fields as the host may see them, in the timeline's order.
    public var fields: FieldList<PresentedField>

    /// Makes a presented entry.
    public init(date: Date?, relevance: Relevance?, fields: FieldList<PresentedField>) {
        self.date = date
        self.relevance = relevance
        self.fields = fields
    }
}

extension PresentedEntry: Codable {
    private enum CodingKeys: String, CodingKey {
        case date, relevance, fields
    }

    /// Decodes the wire shape (dates in RFC 3339).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        date = try container.decodeRFC3339IfPresent(forKey: .date)
        relevance = try container.decodeIfPresent(Relevance.self, forKey: .relevance)
        fields = try container.decode(FieldList<PresentedField>.self, forKey: .fields)
    }

    /// Encodes the date as RFC 3339, omitting absent date and relevance.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(date.map(RFC3339.format), forKey: .date)
        try container.encodeIfPresent(relevance, forKey: .relevance)
        try container.encode(fields, forKey: .fields)
    }
}
