import ArgumentParser
import WidgetdClient
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl timeline WIDGET`: the provider's view, every entry unredacted.
    struct Timeline: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a stored timeline as its provider sees it.",
            discussion: "The timeline must be readable: for a protected class, unlock first.")

        @Argument(help: WidgetArgument.help, completion: WidgetArgument.completion)
        var widget: String

        @OptionGroup var global: GlobalOptions

        func validate() throws { try validateWidgetID(widget) }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.getTimeline, ["widget": .string(widget)])
            if context.json { return context.printJSON(reply) }
            let timeline = try context.decode(TimelineReply.self, from: reply)
            let policy = switch timeline.policy {
            case .atEnd: "atEnd"
            case .after(let date): "after " + context.localDate(date)
            case .never: "never"
            }
            context.print("\(widget): family \(TerminalText.sanitize(timeline.family ?? "-")), "
                + "generation \(timeline.generation), reload \(policy), \(timeline.entries.count) entries")
            let sent = reply.orderedParameters["entries"]
            for (index, entry) in timeline.entries.enumerated() {
                var heading = context.localDate(entry.date)
                if let relevance = entry.relevance {
                    heading += "  relevance \(JSONText.format(number: relevance.score))"
                        + " for \(DurationText.format(seconds: relevance.duration))"
                }
                context.print(heading)
                let width = entry.fields.keys.map { TerminalText.sanitize($0).count }.max() ?? 0
                // In the provider's order, as every host draws them.
                for (name, field) in entry.fields.ordered(as: sent?[index]?["fields"]?.names ?? []) {
                    let label = TerminalText.sanitize(name)
                    let value = TerminalText.sanitize(JSONText.display(field.value))
                        .replacing("\n", with: "\n  " + String(repeating: " ", count: width + 2))
                    let privacy = field.privacy.map { "  (\($0.rawValue))" } ?? ""
                    context.print("  " + label + String(repeating: " ", count: width - label.count) + "  " + value + privacy)
                }
            }
        }
    }
}
