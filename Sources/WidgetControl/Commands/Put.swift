import ArgumentParser
import WidgetModel
import WidgetdWire

extension Widgetctl {
    /// `widgetctl put WIDGET FILE|-`: replaces a widget's timeline.
    struct Put: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a widget's timeline with the one in a file.",
            discussion: """
                The file holds {"entries":[...], "policy":{...}, "placeholder":{...}, \
                "family":...}; only entries is required. Each entry has a date (RFC 3339), \
                an optional relevance, and fields:
                  {"name": {"value": ..., "privacy": "sensitive"|"public"}}.
                The file must be strict JSON, as widgetd reads it (no trailing commas, no \
                comments).
                """)

        @Argument(help: WidgetArgument.help, completion: WidgetArgument.completion)
        var widget: String

        @Argument(help: "The timeline JSON, or - for standard input.", completion: TimelineFileArgument.completion)
        var file: String

        @Option(
            help: "Widget family (e.g. systemSmall); overrides the file.",
            completion: .list([
                "systemSmall", "systemMedium", "systemLarge", "systemExtraLarge",
                "accessoryCircular", "accessoryRectangular", "accessoryInline",
            ]))
        var family: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            try validateWidgetID(widget)
            if family?.isEmpty == true { throw ValidationError("the family must not be empty") }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let timeline = try TimelineFile(path: file, standardInput: context.standardInput)
            try timeline.check(against: widget, path: file)
            // The file's members as written, so that fields keep their order.
            var texts = timeline.memberText
            var parameters: [String: JSONValue] = ["widget": .string(widget)]
            if let family {
                parameters["family"] = .string(family)
                texts["family"] = nil
            }
            let reply = try context.call(.putTimeline, parameters, texts: texts)
            if context.json { return context.printJSON(reply) }
            let generation = try context.decode(GenerationReply.self, from: reply).generation
            context.print("Stored \(widget), generation \(generation).")
        }
    }
}
