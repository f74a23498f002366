import ArgumentParser
import Varlink
import WidgetdWire
import WidgetModel

extension Widgetctl {
    /// `widgetctl settings [show]` and `widgetctl settings set SETTING VALUE …`.
    struct Settings: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or change what locked surfaces may show.",
            subcommands: [Show.self, Change.self],
            defaultSubcommand: Show.self)

        @OptionGroup var global: GlobalOptions

        /// `settings show`, also plain `settings`.
        struct Show: WidgetctlCommand {
            static let configuration = CommandConfiguration(abstract: "Show the settings (the default).")

            @OptionGroup var global: GlobalOptions

            func run(_ context: CommandContext) throws(CommandFailure) {
                try Settings.print(try context.call(.getSettings), context)
            }
        }

        /// `settings set …`: one setting per subcommand.
        struct Change: WidgetctlGroup {
            static let configuration = CommandConfiguration(
                commandName: "set", abstract: "Change one setting.",
                subcommands: [LockScreenWidgets.self, HideSensitiveComplications.self])

            static let commandPath = "widgetctl settings set"

            @OptionGroup var global: GlobalOptions
        }

        /// `settings set lock-screen-widgets on|off|selected [WIDGET…]`.
        struct LockScreenWidgets: WidgetctlCommand {
            static let configuration = CommandConfiguration(
                commandName: "lock-screen-widgets",
                abstract: "Which Lock Screen widgets show their content while locked (the others: redacted).",
                discussion: """
                    'on' shows every widget, 'off' redacts every one, 'selected' shows every widget but \
                    the ones given (without widgets it keeps the current list).
                    """,
                aliases: ["lockScreenWidgets"])

            /// The three values: `lockScreenWidgetsAccess` with or without `hiddenLockScreenWidgets`.
            enum Value: String, ExpressibleByArgument, CaseIterable { case on, off, selected }

            @Argument(help: "on, off or selected.")
            var value: Value

            @Argument(help: "With selected: the widgets to redact.", completion: WidgetArgument.completion)
            var widgets: [String] = []

            @OptionGroup var global: GlobalOptions

            func validate() throws {
                if value != .selected, let extra = widgets.first {
                    throw ValidationError("widgets are given only with 'selected', not after '\(value.rawValue)': '\(extra)'")
                }
                for widget in widgets { try validateWidgetID(widget) }
            }

            func run(_ context: CommandContext) throws(CommandFailure) {
                var change: [String: JSONValue] = ["lockScreenWidgetsAccess": .bool(value != .off)]
                switch value {
                case .on: change["hiddenLockScreenWidgets"] = .array([])
                case .selected where !widgets.isEmpty: change["hiddenLockScreenWidgets"] = .array(widgets.map { .string($0) })
                case .selected, .off: break
                }
                try Settings.print(try context.call(.setSettings, change), context)
            }
        }

        /// `settings set hide-sensitive-complications off|all|selected [WIDGET…]`.
        struct HideSensitiveComplications: WidgetctlCommand {
            static let configuration = CommandConfiguration(
                commandName: "hide-sensitive-complications",
                abstract: "Which widgets are redacted on the always-on display.",
                discussion: "'selected' hides the widgets given; without widgets it keeps the current list.",
                aliases: ["hideSensitiveComplications"])

            /// The three values, as the wire's `HideSensitiveComplications`.
            enum Value: String, ExpressibleByArgument, CaseIterable { case off, all, selected }

            @Argument(help: "off, all or selected.")
            var value: Value

            @Argument(help: "With selected: the widgets to hide.", completion: WidgetArgument.completion)
            var widgets: [String] = []

            @OptionGroup var global: GlobalOptions

            func validate() throws {
                if value != .selected, let extra = widgets.first {
                    throw ValidationError("widgets are given only with 'selected', not after '\(value.rawValue)': '\(extra)'")
                }
                for widget in widgets { try validateWidgetID(widget) }
            }

            func run(_ context: CommandContext) throws(CommandFailure) {
                var change: [String: JSONValue] = ["hideSensitiveComplications": .string(value.rawValue)]
                if !widgets.isEmpty { change["hiddenComplications"] = .array(widgets.map { .string($0) }) }
                try Settings.print(try context.call(.setSettings, change), context)
            }
        }

        /// Prints the settings a reply carries.
        static func print(_ reply: VarlinkReplyMessage, _ context: CommandContext) throws(CommandFailure) {
            if context.json { return context.printJSON(reply) }
            let settings = try context.decode(SettingsReply.self, from: reply).settings
            for line in SettingsText.lines(settings) { context.print(line) }
        }
    }
}
