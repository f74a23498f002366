/// The user's settings that decide what locked and always-on surfaces may show.
///
/// The store persists them in a class-`none` file: they are needed before the first unlock.
public struct Settings: Sendable, Hashable {
    /// "Lock Screen widgets: allow access when locked" (rule 5). On by default.
    public var lockScreenWidgetsAccess: Bool
    /// The widgets redacted on a locked lock screen even while access is on (rule 5):
    /// one widget hidden, the others not.
    public var hiddenLockScreenWidgets: [WidgetID]
    /// Whether the always-on display redacts all, selected or no widgets (rule 6).
    public var hideSensitiveComplications: HideSensitiveComplications
    /// The widgets redacted on the always-on display when the setting is `selected`.
    public var hiddenComplications: [WidgetID]

    /// Makes settings; the defaults are the factory settings.
    public init(
        lockScreenWidgetsAccess: Bool = true,
        hiddenLockScreenWidgets: [WidgetID] = [],
        hideSensitiveComplications: HideSensitiveComplications = .off,
        hiddenComplications: [WidgetID] = []
    ) {
        self.lockScreenWidgetsAccess = lockScreenWidgetsAccess
        self.hiddenLockScreenWidgets = hiddenLockScreenWidgets
        self.hideSensitiveComplications = hideSensitiveComplications
        self.hiddenComplications = hiddenComplications
    }

    /// What applies while the saved settings cannot be read (missing from a store that
    /// is not new, damaged, or altered): no lock-screen access, every complication
    /// hidden, until an administrator sets them again. Failing open would show a lock
    /// screen what the user had closed.
    public static let mostRestrictive = Settings(lockScreenWidgetsAccess: false, hideSensitiveComplications: .all)

    /// Whether a locked lock screen must redact `widget` under these settings (rule 5).
    public func hidesOnLockScreen(_ widget: WidgetID) -> Bool {
        !lockScreenWidgetsAccess || hiddenLockScreenWidgets.contains(widget)
    }

    /// Whether the always-on display must redact `widget` under these settings.
    public func hides(_ widget: WidgetID) -> Bool {
        switch hideSensitiveComplications {
        case .off: false
        case .all: true
        case .selected: hiddenComplications.contains(widget)
        }
    }
}

extension Settings: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case lockScreenWidgetsAccess, hiddenLockScreenWidgets, hideSensitiveComplications, hiddenComplications
    }

    /// Decodes settings; a missing key takes its default, so a file written by an older
    /// version (with fewer settings) still loads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Settings()
        lockScreenWidgetsAccess = try container.decodeIfPresent(Bool.self, forKey: .lockScreenWidgetsAccess)
            ?? defaults.lockScreenWidgetsAccess
        hiddenLockScreenWidgets = try container.decodeIfPresent([WidgetID].self, forKey: .hiddenLockScreenWidgets)
            ?? defaults.hiddenLockScreenWidgets
        hideSensitiveComplications = try container.decodeIfPresent(
            HideSensitiveComplications.self, forKey: .hideSensitiveComplications) ?? defaults.hideSensitiveComplications
        hiddenComplications = try container.decodeIfPresent([WidgetID].self, forKey: .hiddenComplications)
            ?? defaults.hiddenComplications
    }

    /// Encodes every setting, so the wire and the file always show all four.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lockScreenWidgetsAccess, forKey: .lockScreenWidgetsAccess)
        try container.encode(hiddenLockScreenWidgets, forKey: .hiddenLockScreenWidgets)
        try container.encode(hideSensitiveComplications, forKey: .hideSensitiveComplications)
        try container.encode(hiddenComplications, forKey: .hiddenComplications)
    }
}
