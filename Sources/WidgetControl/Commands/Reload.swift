import ArgumentParser
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl reload [PROVIDER[/KIND]]`: asks providers to reload, like WidgetCenter.
    struct Reload: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "Ask providers to reload their timelines.")

        @Argument(
            help: ArgumentHelp("One provider, or one PROVIDER/KIND (default: all).", valueName: "provider[/kind]"),
            completion: .custom(WidgetCompletion.providers))
        var target: String?

        @OptionGroup var global: GlobalOptions

        /// The provider and kind to send.
        var parameters: [String: JSONValue] {
            guard let target else { return [:] }
            let parts = target.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var result: [String: JSONValue] = ["provider": .string(String(parts[0]))]
            if parts.count == 2 { result["kind"] = .string(String(parts[1])) }
            return result
        }

        func validate() throws {
            guard let target else { return }
            if target.contains("/") {
                try validateWidgetID(target)
                if target.contains("#") { throw ValidationError("reload takes PROVIDER[/KIND], without #INSTANCE: '\(target)'") }
            } else if !WidgetIDCheck.isProvider(target) {
                throw ValidationError("not a provider id: '\(target)'")
            }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.reloadTimelines, parameters)
            if context.json { return context.printJSON(reply) }
            context.print("Reload requested for \(target ?? "every provider").")
        }
    }
}
