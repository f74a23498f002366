import ArgumentParser

extension Widgetctl {
    /// `widgetctl status`: lock state, keys, failed attempts and settings.
    struct Status: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "Show lock state, class keys, attempts and settings.")

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call("io.widgetd.Device.GetStatus")
            if context.json { return context.printJSON(reply.parameters) }
            let status = try context.decode(Wire.Status.self, from: reply)
            context.print("State:            \(status.state)")
            context.print("Passcode:         \(status.passcodeSet ? "set" : "not set (no data protection)")")
            var attempts = "Failed attempts:  \(status.failedAttempts)"
            if let wait = status.retryAfter, wait > 0 { attempts += " (try again in \(DurationText.format(seconds: wait)))" }
            context.print(attempts)
            if let sessions = status.sessions {
                context.print("Sessions:         \(sessions.isEmpty ? "none watched" : sessions.joined(separator: " "))")
            }
            context.print("Class keys:")
            let width = status.classes.map(\.class.count).max() ?? 0
            for entry in status.classes {
                let padding = String(repeating: " ", count: width - entry.class.count)
                context.print("  \(entry.class)\(padding)  \(entry.keyAvailable ? "available" : "unavailable")")
            }
            for line in SettingsText.lines(status.settings) { context.print(line) }
            for warning in status.warnings ?? [] { context.print("Warning: \(Self.explanation(of: warning))") }
        }

        /// What a person reads for each warning `GetStatus` defines; a newer daemon's
        /// warning this build does not know is shown by its name.
        static func explanation(of warning: String) -> String {
            switch warning {
            case "settingsUnreadable":
                "settings unreadable: the most restrictive settings apply until they are set again"
            case "memoryNotLocked":
                "memory not locked: decrypted timelines are not cached (or, with RequireLockedMemory=no, cached unlocked); raise LimitMEMLOCK="
            default: warning
            }
        }
    }
}
