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
            "Lock Screen widgets when locked:  " + (settings.lockScreenWidgetsAccess ? "on (allow access)" : "off (redacted)"),
            "Hide sensitive complications:     " + hide,
        ]
    }
}
