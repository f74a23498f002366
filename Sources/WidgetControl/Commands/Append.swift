import ArgumentParser
import WidgetdWire

extension Widgetctl {
    /// `widgetctl append WIDGET FILE|-`: adds entries to a widget's timeline.
    struct Append: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the entries in a file to a widget's timeline.",
            discussion: "The timeline must be readable: for a protected class, unlock first.")

        @Argument(help: WidgetArgument.help, completion: WidgetArgument.completion)
        var widget: String

        @Argument(help: "JSON {\"entries\":[...]}, or - for standard input.", completion: TimelineFileArgument.completion)
        var file: String

        @OptionGroup var global: GlobalOptions

        func validate() throws { try validateWidgetID(widget) }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let timeline = try TimelineFile(path: file, standardInput: context.standardInput)
            try timeline.check(against: widget, path: file)
            let members = timeline.members
            if let other = members.keys.sorted().first(where: { $0 != "entries" }) {
                throw CommandFailure("append sends only \"entries\"; \"\(other)\" needs widgetctl put")
            }
            // The entries as written, so that fields keep their order.
            let reply = try context.call(
                .appendEntries, ["widget": .string(widget)], texts: ["entries": timeline.memberText["entries"]!])
            if context.json { return context.printJSON(reply) }
            let generation = try context.decode(GenerationReply.self, from: reply).generation
            context.print("Appended to \(widget), generation \(generation).")
        }
    }
}
