extension Widgetctl {
    /// `widgetctl append WIDGET FILE|-`: adds entries to a widget's timeline.
    struct Append: Command {
        static let configuration = CommandConfiguration(
            name: "append", abstract: "Add the entries in a file to a widget's timeline.",
            usage: "<widget> <file> [--json]",
            arguments: [
                .init(name: "widget", help: "The widget id, PROVIDER/KIND[#INSTANCE]."),
                .init(name: "file", help: "JSON {\"entries\":[...]}, or - for standard input."),
            ],
            options: [CommandConfiguration.jsonOption],
            discussion: "The timeline must be readable: for a protected class, unlock first.")

        let widget: String
        let file: String

        init(_ arguments: ParsedArguments) throws(UsageError) {
            let words = try arguments.positionals(named: ["widget", "file"], minimum: 2, maximum: 2)
            widget = words[0]
            file = words[1]
        }

        func validate() throws(UsageError) { try validateWidgetID(widget) }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let timeline = try TimelineFile(path: file, standardInput: context.standardInput)
            try timeline.check(against: widget, path: file)
            let members = timeline.members
            if let other = members.keys.sorted().first(where: { $0 != "entries" }) {
                throw CommandFailure("append sends only \"entries\"; \"\(other)\" needs widgetctl put")
            }
            let reply = try context.call(
                "io.widgetd.Provider.AppendEntries", ["widget": .string(widget), "entries": members["entries"]!])
            if context.json { return context.printJSON(reply.parameters) }
            let generation = try context.decode(Wire.Generation.self, from: reply).generation
            context.print("Appended to \(widget), generation \(generation).")
        }
    }
}
