import FoundationEssentials

/// One moment of a timeline: what to show from `date` on (DESIGN §2).
public struct Entry: Sendable, Hashable {
    /// When the entry becomes current; written as RFC 3339.
    public var date: Date
    /// Optional relevance for hosts that rotate widgets.
    public var relevance: Relevance?
    /// The entry's fields, in the order the provider gave them.
    public var fields: FieldList<Field>
    /// What a host may perform on the entry (DESIGN §13), in the provider's order.
    public var actions: [WidgetAction]

    /// Makes an entry; `TimelineValidator` checks it against the limits.
    public init(date: Date, relevance: Relevance? = nil, fields: FieldList<Field>, actions: [WidgetAction] = []) {
        self.date = date
        self.relevance = relevance
        self.fields = fields
        self.actions = actions
    }
}

extension Entry: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case date, relevance, fields, actions
    }

    /// Decodes `{"date": RFC 3339, "relevance"?: …, "fields": {…}, "actions"?: […]}`,
    /// rejecting unknown keys.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        date = try container.decodeRFC3339(forKey: .date)
        relevance = try container.decodeIfPresent(Relevance.self, forKey: .relevance)
        fields = try container.decodeFields(forKey: .fields, in: decoder)
        actions = try container.decodeIfPresent([WidgetAction].self, forKey: .actions) ?? []
    }

    /// Encodes the date as RFC 3339 and omits an absent relevance and no actions.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(RFC3339.format(date), forKey: .date)
        try container.encodeIfPresent(relevance, forKey: .relevance)
        try container.encode(fields, forKey: .fields)
        if !actions.isEmpty { try container.encode(actions, forKey: .actions) }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a required RFC 3339 string, naming the key when it is wrong.
    func decodeRFC3339(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        do {
            return try RFC3339.parse(text)
        } catch {
            throw ModelDecodingFailure(codingPath + [key], error.description)
        }
    }

    /// Decodes an optional RFC 3339 string; null counts as absent.
    func decodeRFC3339IfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeRFC3339(forKey: key)
    }
}
