import ArgumentParser
import WidgetdClient
import WidgetdWire

extension Widgetctl {
    /// `widgetctl passcode set|change|remove`.
    struct Passcode: WidgetctlGroup {
        static let configuration = CommandConfiguration(
            abstract: "Set, change or remove the device passcode.",
            discussion: """
                At a terminal the passcodes are asked for without echo, and a new one twice. \
                With --passcode-stdin, standard input holds one passcode per line.
                """,
            subcommands: [Set.self, Change.self, Remove.self])

        static let commandPath = "widgetctl passcode"

        @OptionGroup var global: GlobalOptions

        /// `passcode set`: the first passcode, when none is set.
        struct Set: WidgetctlCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set a passcode when none is set.",
                discussion: "With --passcode-stdin, standard input holds the new passcode.")

            @OptionGroup var passcode: PasscodeOptions
            @OptionGroup var global: GlobalOptions

            func run(_ context: CommandContext) throws(CommandFailure) {
                let client = try context.connect()
                let new = try passcode.reader(context).readNew()
                try Passcode.send(on: client, current: nil, new: new, context, done: "Passcode set.")
            }
        }

        /// `passcode change`: the current passcode, then a new one.
        struct Change: WidgetctlCommand {
            static let configuration = CommandConfiguration(
                abstract: "Change the passcode.",
                discussion: "With --passcode-stdin, standard input holds the current passcode, then the new one.")

            @OptionGroup var passcode: PasscodeOptions
            @OptionGroup var global: GlobalOptions

            func run(_ context: CommandContext) throws(CommandFailure) {
                let client = try context.connect()
                let reader = passcode.reader(context)
                let current = try reader.read(prompt: "Current passcode: ")
                let new = try reader.readNew()
                try Passcode.send(on: client, current: current, new: new, context, done: "Passcode changed.")
            }
        }

        /// `passcode remove`: the current passcode; timelines are then unprotected.
        struct Remove: WidgetctlCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove the passcode (no data protection).",
                discussion: "With --passcode-stdin, standard input holds the current passcode.")

            @OptionGroup var passcode: PasscodeOptions
            @OptionGroup var global: GlobalOptions

            func run(_ context: CommandContext) throws(CommandFailure) {
                let client = try context.connect()
                let current = try passcode.reader(context).read(prompt: "Current passcode: ")
                try Passcode.send(
                    on: client, current: current, new: nil, context,
                    done: "Passcode removed: timelines are no longer protected by a passcode.")
            }
        }

        /// Sends `SetPasscode` and wipes both secrets before printing.
        static func send(
            on client: ClientSocket, current: ZeroingBuffer?, new: ZeroingBuffer?, _ context: CommandContext, done: String
        ) throws(CommandFailure) {
            let reply = try context.call(
                on: client, .setPasscode, secrets: [("current", current), ("new", new)])
            current?.wipe()
            new?.wipe()
            if context.json { return context.printJSON(reply) }
            context.print(done)
        }
    }
}

