import WidgetModel

extension Widgetctl {
    /// The `<widget> [--surface <surface>]` arguments that `get` and `watch` share.
    struct PresentationTarget {
        let widget: String
        let surface: String

        init(_ arguments: ParsedArguments) throws(UsageError) {
            widget = try arguments.positionals(named: ["widget"], minimum: 1, maximum: 1)[0]
            surface = arguments.values[SurfaceOption.option.name] ?? Surface.homeScreen.rawValue
        }

        func validate() throws(UsageError) {
            try validateWidgetID(widget)
            try SurfaceOption.validate(surface)
        }

        /// The parameters of `GetPresentation` and `Watch`.
        var parameters: [String: JSONValue] { ["widget": .string(widget), "surface": .string(surface)] }
    }
}
