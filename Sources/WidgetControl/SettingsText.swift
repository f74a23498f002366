import WidgetModel

/// Device state and settings as lines a person reads.
enum SettingsText {
    /// The settings block shared by `status` and `settings`.
    static func lines(_ settings: Settings) -> [String] {
        var hide = settings.hideSensitiveComplications.rawValue
        if settings.hideSensitiveComplications == .selected {
            hide += settings.hiddenComplications.isEmpty
                ? " (no widgets)" : " (" + settings.hiddenComplications.map(\.description).joined(separator: ", ") + ")"
        }
        return [
            "Lock Screen widgets when locked:  " + lockScreen(settings),
            "Hide sensitive complications:     " + hide,
        ]
    }

    /// The lock screen's setting in `settings set lock-screen-widgets`'s words.
    static func lockScreen(_ settings: Settings) -> String {
        if !settings.lockScreenWidgetsAccess { return "off (redacted)" }
        if settings.hiddenLockScreenWidgets.isEmpty { return "on (allow access)" }
        return "selected (redacted: " + settings.hiddenLockScreenWidgets.map(\.description).joined(separator: ", ") + ")"
    }
}
