import WidgetModel

/// The one place the CLI asks WidgetModel whether a widget id is well formed.
enum WidgetIDCheck {
    /// The parsed id, or why it is not one.
    static func check(_ text: String) throws(WidgetID.Invalid) -> WidgetID { try WidgetID(text) }

    /// Whether `text` is a provider id on its own.
    static func isProvider(_ text: String) -> Bool { WidgetID.isValidProviderID(text) }
}
