import WidgetModel

extension Widgetctl {
    /// `widgetctl watch WIDGET [--surface S]`: the preview, again whenever it changes.
    struct Watch: Command {
        static let configuration = CommandConfiguration(
            name: "watch", abstract: "Follow a widget's presentation as it changes.",
            usage: "<widget> [--surface <surface>] [--json]",
            arguments: [.init(name: "widget", help: "The widget id, PROVIDER/KIND[#INSTANCE].")],
            options: [SurfaceOption.option, CommandConfiguration.jsonOption],
            discussion: "The first preview is the current one. With --json, one JSON object per line.")

        /// Moves the cursor home and clears the screen.
        static let clearScreen = "\u{1B}[H\u{1B}[2J"

        let target: PresentationTarget

        init(_ arguments: ParsedArguments) throws(UsageError) {
            target = try PresentationTarget(arguments)
        }

        func validate() throws(UsageError) { try target.validate() }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let renderer = PreviewRenderer(color: context.color)
            try context.stream("io.widgetd.Host.Watch", target.parameters) { reply throws(CommandFailure) in
                if context.json { return context.printJSON(reply.parameters) }
                let presentation = try context.decode(Wire.PresentationReply.self, from: reply).presentation
                // At a terminal each presentation replaces the last; in a pipe they follow each other.
                if context.redraws { context.standardOutput.write(Self.clearScreen) }
                context.standardOutput.write(renderer.render(presentation))
            }
        }
    }
}
