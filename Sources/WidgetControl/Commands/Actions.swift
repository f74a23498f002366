import ArgumentParser
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl actions [--provider ID]`: the actions hosts perform on the caller's
    /// widgets, as their provider receives them (`WatchActions`).
    struct Actions: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Receive the actions hosts perform on your widgets.",
            discussion: """
                One line per delivered action: the time it arrived (RFC 3339, UTC), the \
                widget, the action's id, a toggle's new state ("on" or "off"), the surface \
                and "while locked" when the device was locked. Each action goes to one \
                watching connection of its provider, once: while this runs, your provider \
                does not receive them. With --json, one object per line as the daemon sent \
                it, with a "timestamp" member.
                """)

        @Option(
            help: ArgumentHelp("Only this provider's widgets (default: every provider you may write for).", valueName: "id"),
            completion: .custom(WidgetCompletion.providers))
        var provider: String?

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if let provider, !WidgetIDCheck.isProvider(provider) {
                throw ValidationError("not a provider id: '\(TerminalText.sanitize(provider))'")
            }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let parameters: [String: JSONValue] = provider.map { ["provider": .string($0)] } ?? [:]
            try context.stream(.watchActions, parameters) { reply throws(CommandFailure) in
                let timestamp = context.timestamp()
                let delivery = try context.decode(ActionDelivery.self, from: reply)
                if context.json {
                    var stamped = reply.parameters
                    stamped["timestamp"] = .string(timestamp)
                    return context.printJSON(stamped)
                }
                context.print(timestamp + "  " + Self.line(for: delivery))
            }
        }

        /// `com.example.media/player play → on · lock-screen · while locked`.
        static func line(for delivery: ActionDelivery) -> String {
            var line = TerminalText.sanitize(delivery.widget) + " " + TerminalText.sanitize(delivery.action)
            if let isOn = delivery.isOn { line += isOn ? " → on" : " → off" }
            let surface = Surface(rawValue: delivery.surface).map(SurfaceName.spelling(of:)) ?? delivery.surface
            line += " · " + TerminalText.sanitize(surface)
            if delivery.whileLocked { line += " · while locked" }
            return line
        }
    }
}
