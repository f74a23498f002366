import WidgetModel

/// The `--surface` option of `get` and `watch`.
enum SurfaceOption {
    /// Its help row.
    static let option = CommandConfiguration.Option(
        "--surface", value: "surface", help: "homeScreen (default), lockScreen, alwaysOn or remote.")

    /// Checks `text` names a surface.
    static func validate(_ text: String) throws(UsageError) {
        guard Surface(rawValue: text) != nil else {
            let names = Surface.allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("unknown surface '\(text)' (expected \(names))")
        }
    }
}
