/// Where a host shows a widget (DESIGN §2).
public enum Surface: String, Sendable, Hashable, Codable, CaseIterable {
    /// The home screen: shown only while the user can see it unlocked.
    case homeScreen
    /// The lock screen: seen by anyone holding the device (rule 5).
    case lockScreen
    /// The always-on display: luminance reduced.
    case alwaysOn
    /// Mirrored to another device.
    case remote
}
