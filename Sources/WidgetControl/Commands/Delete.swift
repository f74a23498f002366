extension Widgetctl {
    /// `widgetctl delete WIDGET`.
    struct Delete: Command {
        static let configuration = CommandConfiguration(
            name: "delete", abstract: "Delete a widget's timeline.", usage: "<widget> [--json]",
            arguments: [.init(name: "widget", help: "The widget id, PROVIDER/KIND[#INSTANCE].")],
            options: [CommandConfiguration.jsonOption])

        let widget: String

        init(_ arguments: ParsedArguments) throws(UsageError) {
            widget = try arguments.positionals(named: ["widget"], minimum: 1, maximum: 1)[0]
        }

        func validate() throws(UsageError) { try validateWidgetID(widget) }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call("io.widgetd.Provider.DeleteTimeline", ["widget": .string(widget)])
            if context.json { return context.printJSON(reply.parameters) }
            context.print("Deleted \(widget).")
        }
    }
}
