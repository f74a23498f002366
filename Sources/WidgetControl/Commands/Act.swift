import ArgumentParser
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl act WIDGET ACTION [--surface S] [--wait]`: performs an action as a host
    /// would (DESIGN §13), and prints its outcome.
    struct Act: WidgetctlCommand {
        static let configuration = CommandConfiguration(
            abstract: "Perform a widget's action as a host would.",
            discussion: """
                Only an action of what the surface shows now can be performed (widgetctl get \
                lists them). It prints the outcome: "delivered" (the provider has it), "held" \
                (it needs an unlock, and runs if one comes within ActionHoldSec=) or \
                "expired" (exit 1: no unlock came in time, the device locked, or the action \
                is no longer shown). --wait follows a held action until its final outcome. \
                An action not shown is exit 1; a provider that does not watch its actions, \
                exit 69.
                """)

        @Argument(help: WidgetArgument.help, completion: WidgetArgument.completion)
        var widget: String

        @Argument(
            help: ArgumentHelp("The action's id, as widgetctl get lists it.", valueName: "action"),
            completion: .custom(WidgetCompletion.actions))
        var action: String

        @Option(help: "The surface a host shows it on.")
        var surface: SurfaceName = .homeScreen

        @Flag(help: "Wait for a held action's final outcome (delivered by an unlock, or expired).")
        var wait = false

        @OptionGroup var global: GlobalOptions

        func validate() throws {
            try validateWidgetID(widget)
            guard !action.isEmpty, action.utf8.count <= 64,
                  action.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)) })
            else { throw ValidationError("not an action id (letters, digits, '.', '_' and '-', at most 64 bytes): '\(TerminalText.sanitize(action))'") }
        }

        /// `PerformAction`'s parameters.
        var parameters: [String: JSONValue] {
            ["widget": .string(widget), "surface": .string(surface.surface.rawValue), "action": .string(action)]
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            var outcome = ActionOutcome.expired
            if wait {
                try context.stream(.performAction, parameters) { reply throws(CommandFailure) in
                    outcome = try context.decode(PerformActionReply.self, from: reply).outcome
                    if outcome == .held, !context.json {
                        context.standardError.write("held: waiting for an unlock (within ActionHoldSec=)…\n")
                    }
                }
            } else {
                outcome = try context.decode(PerformActionReply.self, from: context.call(.performAction, parameters)).outcome
            }
            if outcome == .expired {
                throw CommandFailure(
                    "expired: \(action) did not run (no unlock came within ActionHoldSec=, the device locked, or it is no longer shown)",
                    name: "widgetctl.ActionExpired", parameters: ["widget": .string(widget), "action": .string(action)])
            }
            if context.json { return context.printJSON(["outcome": .string(outcome.rawValue)]) }
            switch outcome {
            case .delivered: context.print("delivered")
            case .held: context.print("held: it runs if the device is unlocked within ActionHoldSec= (--wait follows it)")
            case .expired: break
            }
        }
    }
}
