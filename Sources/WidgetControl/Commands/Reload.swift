import WidgetModel

extension Widgetctl {
    /// `widgetctl reload [PROVIDER[/KIND]]`: asks providers to reload, like WidgetCenter.
    struct Reload: Command {
        static let configuration = CommandConfiguration(
            name: "reload", abstract: "Ask providers to reload their timelines.",
            usage: "[<provider>[/<kind>]] [--json]",
            arguments: [.init(name: "provider", help: "One provider, or one PROVIDER/KIND (default: all).")],
            options: [CommandConfiguration.jsonOption])

        let target: String?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            target = try arguments.positionals(named: ["provider"], minimum: 0, maximum: 1).first
        }

        /// The provider and kind to send.
        var parameters: [String: JSONValue] {
            guard let target else { return [:] }
            let parts = target.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var result: [String: JSONValue] = ["provider": .string(String(parts[0]))]
            if parts.count == 2 { result["kind"] = .string(String(parts[1])) }
            return result
        }

        func validate() throws(UsageError) {
            guard let target else { return }
            if target.contains("/") {
                try validateWidgetID(target)
                if target.contains("#") { throw UsageError("reload takes PROVIDER[/KIND], without #INSTANCE: '\(target)'") }
            } else if !WidgetIDCheck.isProvider(target) {
                throw UsageError("not a provider id: '\(target)'")
            }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call("io.widgetd.Host.ReloadTimelines", parameters)
            if context.json { return context.printJSON(reply.parameters) }
            context.print("Reload requested for \(target ?? "every provider").")
        }
    }
}
