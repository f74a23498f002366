import ArgumentParser
import Glibc
import WidgetModel
import WidgetdWire

extension Widgetctl {
    /// `widgetctl put [WIDGET] FILE|-`: replaces a widget's timeline; without WIDGET, the
    /// file names it (`"widget"`, as the example timelines do).
    struct Put: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a widget's timeline with the one in a file.",
            discussion: """
                The file holds {"entries":[...], "policy":{...}, "placeholder":{...}, \
                "family":...}; only entries is required. Each entry has a date (RFC 3339), \
                an optional relevance, and fields:
                  {"name": {"value": ..., "privacy": "sensitive"|"public"}}.
                The file must be strict JSON, as widgetd reads it (no trailing commas, no \
                comments). A file that names its widget ("widget": ...) may be given alone: \
                widgetctl put FILE.
                """)

        @Argument(
            help: ArgumentHelp(WidgetArgument.help.abstract + " Left out when the file names it.", valueName: "widget"),
            completion: WidgetArgument.completion)
        var first: String

        @Argument(help: "The timeline JSON, or - for standard input.", completion: TimelineFileArgument.completion)
        var second: String?

        /// The widget given on the command line, if any.
        var widget: String? { second == nil ? nil : first }
        /// The file.
        var file: String { second ?? first }

        @Option(
            help: "Widget family (e.g. systemSmall); overrides the file.",
            completion: .list([
                "systemSmall", "systemMedium", "systemLarge", "systemExtraLarge",
                "accessoryCircular", "accessoryRectangular", "accessoryInline",
            ]))
        var family: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let widget { try validateWidgetID(widget) }
            // `put a/b` with no such file: a widget id whose file was left out.
            if second == nil, first != "-", access(first, F_OK) != 0, (try? validateWidgetID(first)) != nil {
                throw ValidationError("Missing expected argument '<file>'")
            }
            if family?.isEmpty == true { throw ValidationError("the family must not be empty") }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let timeline = try TimelineFile(path: file, standardInput: context.standardInput)
            guard let widget = widget ?? timeline.widget else {
                throw CommandFailure(
                    "\(file == "-" ? "standard input" : file) names no widget (\"widget\": ...): give it, widgetctl put WIDGET FILE",
                    exitCode: .usage)
            }
            do { try validateWidgetID(widget) } catch { throw CommandFailure(error.message, exitCode: .usage) }
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
