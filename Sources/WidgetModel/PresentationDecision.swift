/// The outcome of the first phase (DESIGN §4 rules 1–3 and 5–7): what the host may
/// see, decided before the timeline is read, so that the daemon decrypts nothing for
/// a placeholder.
public enum PresentationDecision: String, Sendable, Hashable, CaseIterable {
    /// Show the placeholder; do not read the timeline.
    case placeholder
    /// Show the current entry with its sensitive fields replaced.
    case redacted
    /// Show the current entry as stored.
    case content

    /// Whether the second phase needs the timeline's content (decrypted).
    public var needsTimeline: Bool { self != .placeholder }
}
