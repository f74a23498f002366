import ArgumentParser
import WidgetdWire

extension Widgetctl {
    /// `widgetctl delete WIDGET`.
    struct Delete: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a widget's timeline.")

        @Argument(help: WidgetArgument.help, completion: WidgetArgument.completion)
        var widget: String

        @OptionGroup var global: GlobalOptions

        func validate() throws { try validateWidgetID(widget) }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.deleteTimeline, ["widget": .string(widget)])
            if context.json { return context.printJSON(reply) }
            context.print("Deleted \(widget).")
        }
    }
}
