import ArgumentParser
import WidgetdClient
import WidgetdWire

extension Widgetctl {
    /// `widgetctl watch WIDGET [--surface S] [--format F]`: the preview, again whenever it changes.
    struct Watch: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a widget's presentation as it changes.",
            discussion: """
                The first preview is the current one. Each is stamped with the time it arrived \
                (RFC 3339, UTC): a line before the preview, or with --json a "timestamp" member \
                beside "presentation", one JSON object per line. --format json prints each \
                presentation as the daemon sent it, one per line; --format waybar one line of \
                Waybar's custom-module JSON ("text", "tooltip", "class", "alt"; class and alt \
                are the mode), redacted fields as bars.
                """)

        /// Moves the cursor home and clears the screen.
        static let clearScreen = "\u{1B}[H\u{1B}[2J"

        @OptionGroup var target: PresentationTarget

        @Option(help: "How each presentation is printed: text (a preview), json (one presentation per line) or waybar (Waybar's custom-module JSON).")
        var format: WatchFormat = .text

        @Option(
            name: .customLong("field"),
            help: ArgumentHelp(
                "With --format waybar: a field the label shows, in the order given (repeat it; default: every field, in the provider's order).",
                valueName: "name"))
        var fields: [String] = []

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if !fields.isEmpty, format != .waybar { throw ValidationError("--field is only for --format waybar") }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let waybar = WaybarFormat(fields: fields)
            // A --field the presentation lacks (a typo, a renamed field) is said once, not per line.
            var warned = Set<String>()
            // At a terminal, a date that ticks is redrawn each second with no new entry.
            let ticking = TickingPreview(context: context) { presentation, now in
                var renderer = context.renderer
                renderer.now = now
                return renderer.render(presentation)
            }
            defer { ticking.stop() }
            try context.stream(.watch, target.parameters) { reply throws(CommandFailure) in
                switch format {
                case .json:
                    // Checked like every reply, then printed exactly as the daemon sent it.
                    _ = try context.decode(PresentationReply.self, from: reply)
                    return context.standardOutput.write((reply.orderedParameters["presentation"] ?? .null).text + "\n")
                case .waybar:
                    var presentation = try context.decode(PresentationReply.self, from: reply).presentation
                    presentation.entry.fields = presentation.entry.fields.ordered(as: reply.fieldOrder)
                    for name in fields where presentation.entry.fields[name] == nil && !warned.contains(name) {
                        warned.insert(name)
                        let has = presentation.entry.fields.keys.map { TerminalText.sanitize($0) }.joined(separator: ", ")
                        context.standardError.write(
                            "widgetctl: warning: --field '\(TerminalText.sanitize(name))' is not a field of "
                                + "\(presentation.widget) (its fields: \(has.isEmpty ? "none" : has))\n")
                    }
                    return context.print(waybar.line(for: presentation))
                case .text:
                    break
                }
                if context.json {
                    // As sent (fields in the provider's order), stamped in UTC.
                    return context.printJSON(reply, adding: "timestamp", context.timestamp())
                }
                let timestamp = context.localTimestamp()
                var presentation = try context.decode(PresentationReply.self, from: reply).presentation
                presentation.entry.fields = presentation.entry.fields.ordered(as: reply.fieldOrder)
                // At a terminal each presentation replaces the last; in a pipe they follow each other.
                if context.redraws { return ticking.show(presentation, stamp: timestamp) }
                context.print(timestamp)
                context.standardOutput.write(context.renderer.render(presentation))
            }
        }
    }
}
