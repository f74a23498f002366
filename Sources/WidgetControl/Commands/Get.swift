import WidgetModel

extension Widgetctl {
    /// `widgetctl get WIDGET [--surface S]`: what a host would show.
    struct Get: Command {
        static let configuration = CommandConfiguration(
            name: "get", abstract: "Preview a widget as a host would show it.",
            usage: "<widget> [--surface <surface>] [--json]",
            arguments: [.init(name: "widget", help: "The widget id, PROVIDER/KIND[#INSTANCE].")],
            options: [SurfaceOption.option, CommandConfiguration.jsonOption])

        let target: PresentationTarget

        init(_ arguments: ParsedArguments) throws(UsageError) {
            target = try PresentationTarget(arguments)
        }

        func validate() throws(UsageError) { try target.validate() }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call("io.widgetd.Host.GetPresentation", target.parameters)
            if context.json { return context.printJSON(reply.parameters) }
            let presentation = try context.decode(Wire.PresentationReply.self, from: reply).presentation
            context.standardOutput.write(PreviewRenderer(color: context.color).render(presentation))
        }
    }
}
