import WidgetModel

extension Widgetctl {
    /// `widgetctl settings` and `widgetctl settings set …`.
    struct Settings: Command {
        static let configuration = CommandConfiguration(
            name: "settings", abstract: "Show or change what locked surfaces may show.",
            usage: "[set <setting> <value> [<widget> ...]] [--json]",
            arguments: [
                .init(name: "setting", help: "lock-screen-widgets or hide-sensitive-complications."),
                .init(name: "value", help: "on|off, or off|all|selected (see below)."),
                .init(name: "widget", help: "With selected: the widgets to hide."),
            ],
            options: [CommandConfiguration.jsonOption],
            discussion: "Without arguments, shows the settings.\n"
                + "  lock-screen-widgets on|off: whether Lock Screen widgets show their content\n"
                + "    while locked (off: redacted).\n"
                + "  hide-sensitive-complications off|all|selected [<widget> ...]: which widgets\n"
                + "    are redacted on the always-on display; 'selected' without widgets keeps\n"
                + "    the current list.")

        /// A change to make, or `nil` to show the settings.
        let change: [String: JSONValue]?

        /// The words after `settings`, kept for `validate()`.
        private let words: [String]

        init(_ arguments: ParsedArguments) throws(UsageError) {
            words = arguments.positionals
            change = try Self.parse(words)
        }

        private static func parse(_ words: [String]) throws(UsageError) -> [String: JSONValue]? {
            guard let verb = words.first else { return nil }
            guard verb == "set" else { throw UsageError("unexpected argument '\(verb)' (expected 'set')") }
            guard words.count >= 2 else { throw UsageError("missing argument <setting>") }
            guard words.count >= 3 else { throw UsageError("missing argument <value>") }
            let value = words[2]
            switch words[1] {
            case "lock-screen-widgets":
                guard words.count == 3 else { throw UsageError("unexpected argument '\(words[3])'") }
                switch value {
                case "on": return ["lockScreenWidgetsAccess": .bool(true)]
                case "off": return ["lockScreenWidgetsAccess": .bool(false)]
                default: throw UsageError("lock-screen-widgets is on or off, not '\(value)'")
                }
            case "hide-sensitive-complications":
                guard ["off", "all", "selected"].contains(value) else {
                    throw UsageError("hide-sensitive-complications is off, all or selected, not '\(value)'")
                }
                let widgets = Array(words.dropFirst(3))
                if value != "selected", let extra = widgets.first {
                    throw UsageError("widgets are given only with 'selected', not after '\(value)': '\(extra)'")
                }
                var change: [String: JSONValue] = ["hideSensitiveComplications": .string(value)]
                if !widgets.isEmpty { change["hiddenComplications"] = .array(widgets.map { .string($0) }) }
                return change
            default:
                throw UsageError("unknown setting '\(words[1])' (expected lock-screen-widgets or hide-sensitive-complications)")
            }
        }

        func validate() throws(UsageError) {
            for widget in words.dropFirst(3) { try validateWidgetID(widget) }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply: VarlinkReply
            if let change {
                reply = try context.call("io.widgetd.Device.SetSettings", change)
            } else {
                reply = try context.call("io.widgetd.Device.GetSettings")
            }
            if context.json { return context.printJSON(reply.parameters) }
            let settings = try context.decode(Wire.SettingsReply.self, from: reply).settings
            for line in SettingsText.lines(settings) { context.print(line) }
        }
    }
}
