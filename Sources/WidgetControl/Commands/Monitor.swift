import ArgumentParser
import WidgetdWire

extension Widgetctl {
    /// `widgetctl monitor`: follows state and settings changes.
    struct Monitor: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow lock state and settings changes as they happen.",
            discussion: """
                The first line is the current state. Each line starts with the time the event \
                arrived (RFC 3339, UTC); with --json, one JSON object per line, the time in a \
                "timestamp" member beside "event".
                """)

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            try context.stream(.monitor, [:]) { reply throws(CommandFailure) in
                if context.json { return context.printJSON(reply, adding: "timestamp", context.timestamp()) }
                let event = try context.decode(DeviceEventReply.self, from: reply).event
                context.print(context.localTimestamp() + "  " + Self.line(for: event))
            }
        }

        /// One event as a line, settings in the command line's spelling.
        static func line(for event: DeviceEvent) -> String {
            let settings = event.settings
            switch event.kind {
            case .settings:
                var hide = settings.hideSensitiveComplications.rawValue
                if settings.hideSensitiveComplications == .selected {
                    hide += " (" + settings.hiddenComplications.map(\.description).joined(separator: ", ") + ")"
                }
                var lockScreen = settings.lockScreenWidgetsAccess ? "on" : "off"
                if settings.lockScreenWidgetsAccess && !settings.hiddenLockScreenWidgets.isEmpty {
                    lockScreen = "selected (" + settings.hiddenLockScreenWidgets.map(\.description).joined(separator: ", ") + ")"
                }
                return "settings: lock-screen-widgets \(lockScreen), "
                    + "hide-sensitive-complications \(hide)"
            case .state:
                let lockedBy = event.lockedBy.map { ", locked by \($0)" } ?? ""
                return "state: \(event.state.rawValue) (passcode \(event.passcodeSet ? "set" : "not set")\(lockedBy))"
            }
        }
    }
}
