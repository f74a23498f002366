import WidgetModel

extension Widgetctl {
    /// `widgetctl put WIDGET FILE|-`: replaces a widget's timeline.
    struct Put: Command {
        static let configuration = CommandConfiguration(
            name: "put", abstract: "Replace a widget's timeline with the one in a file.",
            usage: "<widget> <file> [--family <family>] [--json]",
            arguments: [
                .init(name: "widget", help: "The widget id, PROVIDER/KIND[#INSTANCE]."),
                .init(name: "file", help: "The timeline JSON, or - for standard input."),
            ],
            options: [
                .init("--family", value: "family", help: "Widget family (e.g. systemSmall); overrides the file."),
                CommandConfiguration.jsonOption,
            ],
            discussion: "The file holds {\"entries\":[...], \"policy\":{...}, \"placeholder\":{...},\n"
                + "\"family\":...}; only entries is required. Each entry has a date (RFC 3339),\n"
                + "an optional relevance, and fields:\n"
                + "  {\"name\": {\"value\": ..., \"privacy\": \"sensitive\"|\"public\"}}.")

        let widget: String
        let file: String
        let family: String?

        init(_ arguments: ParsedArguments) throws(UsageError) {
            let words = try arguments.positionals(named: ["widget", "file"], minimum: 2, maximum: 2)
            widget = words[0]
            file = words[1]
            family = arguments.values["--family"]
        }

        func validate() throws(UsageError) {
            try validateWidgetID(widget)
            if family?.isEmpty == true { throw UsageError("the family must not be empty") }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let timeline = try TimelineFile(path: file, standardInput: context.standardInput)
            try timeline.check(against: widget, path: file)
            var parameters = timeline.members
            parameters["widget"] = .string(widget)
            if let family { parameters["family"] = .string(family) }
            let reply = try context.call("io.widgetd.Provider.PutTimeline", parameters)
            if context.json { return context.printJSON(reply.parameters) }
            let generation = try context.decode(Wire.Generation.self, from: reply).generation
            context.print("Stored \(widget), generation \(generation).")
        }
    }
}
