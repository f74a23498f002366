import StrictJSON

/// An entry-shaped sample with no private data, shown when content may not be (DESIGN §2).
///
/// Stored in class `none` so that it can be served in every state.
public struct Placeholder: Sendable, Hashable {
    /// The sample fields, in the order the provider gave them; their values also stand
    /// in for redacted fields of the same name.
    public var fields: FieldList<Field>
    /// What a host may perform while the placeholder is shown; their titles also stand
    /// in for redacted actions' titles of the same id.
    public var actions: [WidgetAction]

    /// A placeholder with no fields, used when a provider gave none.
    public static let empty = Placeholder(fields: [:])

    /// Makes a placeholder.
    public init(fields: FieldList<Field>, actions: [WidgetAction] = []) {
        self.fields = fields
        self.actions = actions
    }

    /// Decodes and validates a placeholder from raw JSON bytes (`{"fields":{…}}`).
    public static func decode(
        from bytes: UnsafeRawBufferPointer, limits: TimelineLimits = .default
    ) throws(InvalidTimeline) -> Placeholder {
        let placeholder = try InvalidTimeline.reading(bytes) { (reader) throws(JSONReadError) in
            try Placeholder.read(from: &reader)
        }
        try TimelineValidator.validate(placeholder: placeholder, limits: limits)
        return placeholder
    }

    /// Decodes and validates a placeholder from JSON bytes.
    public static func decode(from bytes: [UInt8], limits: TimelineLimits = .default) throws(InvalidTimeline) -> Placeholder {
        try bytes.withUnsafeBytes { buffer in Result { () throws(InvalidTimeline) in try decode(from: buffer, limits: limits) } }.get()
    }
}

extension Placeholder: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case fields, actions
    }

    /// Decodes `{"fields": {…}, "actions"?: […]}`, rejecting unknown keys.
    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fields = try container.decodeFields(forKey: .fields, in: decoder)
        actions = try container.decodeIfPresent([WidgetAction].self, forKey: .actions) ?? []
    }

    /// Encodes `{"fields": {…}}`, with `actions` when there are any.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(fields, forKey: .fields)
        if !actions.isEmpty { try container.encode(actions, forKey: .actions) }
    }
}
