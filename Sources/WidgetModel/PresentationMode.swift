/// What kind of entry a presentation carries (DESIGN §4).
public enum PresentationMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The current entry as stored.
    case content
    /// The current entry with every `sensitive` field replaced.
    case redacted
    /// The placeholder's fields; nothing from the timeline.
    case placeholder
}
