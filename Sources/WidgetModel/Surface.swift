/// Where a host shows a widget (DESIGN §2).
public enum Surface: String, Sendable, Hashable, Codable, CaseIterable {
    case homeScreen
    case lockScreen
    /// The always-on display: luminance reduced.
    case alwaysOn
    /// Mirrored to another device.
    case remote
}
