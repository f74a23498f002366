/// Device state and settings as lines a person reads.
enum SettingsText {
    /// The settings block shared by `status` and `settings`.
    static func lines(_ settings: Wire.Settings) -> [String] {
        var hide = settings.hideSensitiveComplications
        if hide == "selected" {
            hide += settings.hiddenComplications.isEmpty
                ? " (no widgets)" : " (" + settings.hiddenComplications.joined(separator: ", ") + ")"
        }
        return [
            "Lock Screen widgets when locked:  " + (settings.lockScreenWidgetsAccess ? "on (allow access)" : "off (redacted)"),
            "Hide sensitive complications:     " + hide,
        ]
    }
}
