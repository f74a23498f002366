import ArgumentParser
import WidgetModel

extension Widgetctl {
    /// The `<widget> [--surface <surface>]` arguments that `get` and `watch` share.
    struct PresentationTarget: ParsableArguments {
        @Argument(help: WidgetArgument.help, completion: WidgetArgument.completion)
        var widget: String

        @Option(help: "The surface a host shows it on.")
        var surface: SurfaceName = .homeScreen

        func validate() throws { try validateWidgetID(widget) }

        /// The parameters of `GetPresentation` and `Watch`, in the wire's spelling.
        var parameters: [String: JSONValue] { ["widget": .string(widget), "surface": .string(surface.surface.rawValue)] }
    }
}
