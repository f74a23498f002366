import ArgumentParser
import WidgetModel
import WidgetdWire

extension Widgetctl {
    /// `widgetctl status`: lock state and why, passcode (and whether it is in step with the
    /// login password), keys, failed attempts, running timers, watched sessions and settings.
    struct Status: WidgetctlCommand {
        static let configuration = CommandConfiguration(abstract: "Show lock state, class keys, attempts and settings.")

        @OptionGroup var global: GlobalOptions

        func run(_ context: CommandContext) throws(CommandFailure) {
            let reply = try context.call(.getStatus)
            if context.json { return context.printJSON(reply) }
            let status = try context.decode(StatusReply.self, from: reply)
            context.print("State:            \(status.state.rawValue)")
            if let lockedBy = status.lockedBy { context.print("Locked by:        \(lockedBy)") }
            // Out of step (DESIGN §8): the login password no longer unlocks; say how to mend it.
            let passcode = status.passcodeInStep == false
                ? "out of step with the login password — run widgetctl passcode change"
                : status.passcodeSet ? "set" : "not set (no data protection)"
            context.print("Passcode:         \(passcode)")
            var attempts = "Failed attempts:  \(status.failedAttempts)"
            if let wait = status.retryAfter, wait > 0 { attempts += " (try again in \(DurationText.format(seconds: wait)))" }
            context.print(attempts)
            // The timers that run while locked: what the next minutes will change by themselves.
            if let grace = status.classAGraceEndsIn {
                context.print("Class A purged:   in \(DurationText.format(seconds: grace)) (class A grace after the lock)")
            }
            if let required = status.passcodeRequiredIn {
                context.print("Passcode needed:  in \(DurationText.format(seconds: required)) (RequirePasscodeAfterSec=: class C purged too)")
            }
            if let sessions = status.sessions {
                context.print("Sessions:         \(sessions.isEmpty ? "none watched" : sessions.joined(separator: " "))")
            }
            if let protection = status.protection {
                context.print("Device key:       \(protection.deviceKey)")
                context.print("Attempts counted: \(protection.attempts)")
                context.print("Rollback check:   \(protection.rollback)")
            }
            context.print("Class keys:")
            let width = status.classes.map(\.class.rawValue.count).max() ?? 0
            for entry in status.classes {
                let padding = String(repeating: " ", count: width - entry.class.rawValue.count)
                context.print("  \(entry.class.rawValue)\(padding)  \(entry.keyAvailable ? "available" : "unavailable")")
            }
            for line in SettingsText.lines(status.settings) { context.print(line) }
            // The names as sent: a newer daemon's warning this build does not know is shown too.
            let warnings: [JSONValue] = if case .array(let names)? = reply.parameters["warnings"] { names } else { [] }
            for case .string(let warning) in warnings { context.print("Warning: \(Self.explanation(of: warning))") }
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
