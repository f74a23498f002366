extension Widgetctl {
    /// `widgetctl monitor`: follows state and settings changes.
    struct Monitor: Command {
        static let configuration = CommandConfiguration(
            name: "monitor", abstract: "Follow lock state and settings changes as they happen.",
            usage: "[--json]", options: [CommandConfiguration.jsonOption],
            discussion: "The first line is the current state. With --json, one JSON object per line.")

        init(_ arguments: ParsedArguments) throws(UsageError) {
            _ = try arguments.positionals(named: [], minimum: 0, maximum: 0)
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            try context.stream("io.widgetd.Device.Monitor", [:]) { reply throws(CommandFailure) in
                if context.json { return context.printJSON(reply.parameters) }
                let event = try context.decode(Wire.MonitorReply.self, from: reply).event
                context.print(Self.line(for: event))
            }
        }

        /// One event as a line.
        static func line(for event: Wire.DeviceEvent) -> String {
            let settings = event.settings
            switch event.kind {
            case "settings":
                var hide = settings.hideSensitiveComplications
                if hide == "selected" { hide += " (" + settings.hiddenComplications.joined(separator: ", ") + ")" }
                return "settings: lock-screen-widgets \(settings.lockScreenWidgetsAccess ? "on" : "off"), "
                    + "hide-sensitive-complications \(hide)"
            default:
                return "state: \(event.state) (passcode \(event.passcodeSet ? "set" : "not set"))"
            }
        }
    }
}
