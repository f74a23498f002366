import ArgumentParser
import WidgetdWire

extension Widgetctl {
    /// `widgetctl watch WIDGET [--surface S]`: the preview, again whenever it changes.
    struct Watch: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a widget's presentation as it changes.",
            discussion: """
                The first preview is the current one. Each is stamped with the time it arrived \
                (RFC 3339, UTC): a line before the preview, or with --json a "timestamp" member \
                beside "presentation", one JSON object per line.
                """)

        /// Moves the cursor home and clears the screen.
        static let clearScreen = "\u{1B}[H\u{1B}[2J"

        @OptionGroup var target: PresentationTarget
        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let renderer = PreviewRenderer(color: context.color)
            try context.stream(.watch, target.parameters) { reply throws(CommandFailure) in
                let timestamp = context.timestamp()
                if context.json {
                    var stamped = reply.parameters
                    stamped["timestamp"] = .string(timestamp)
                    return context.printJSON(stamped)
                }
                let presentation = try context.decode(PresentationReply.self, from: reply).presentation
                // At a terminal each presentation replaces the last; in a pipe they follow each other.
                if context.redraws { context.standardOutput.write(Self.clearScreen) }
                context.print(timestamp)
                context.standardOutput.write(renderer.render(presentation))
            }
        }
    }
}
