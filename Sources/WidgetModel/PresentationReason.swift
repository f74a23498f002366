/// Why a presentation is not plain, current content (DESIGN §4).
public enum PresentationReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The placeholder is shown (mode `placeholder`).
    case placeholder
    /// Sensitive fields are hidden (mode `redacted`).
    case privacy
    /// The timeline is stale: its reload is due and no new one has arrived.
    case invalidated
}
