/// The "hide sensitive complications" setting for the always-on display (DESIGN §4, rule 6).
public enum HideSensitiveComplications: String, Sendable, Hashable, Codable, CaseIterable {
    /// Show content on the always-on display. The default.
    case off
    /// Redact every widget on the always-on display.
    case all
    /// Redact the widgets listed in `Settings.hiddenComplications`.
    case selected
}
