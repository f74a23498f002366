extension Widgetctl {
    /// `widgetctl passcode set|change|remove`.
    struct Passcode: Command {
        static let configuration = CommandConfiguration(
            name: "passcode", abstract: "Set, change or remove the device passcode.",
            usage: "set|change|remove [--passcode-stdin] [--json]",
            arguments: [.init(name: "action", help: "set (no passcode yet), change, or remove.")],
            options: [PasscodeReader.option, CommandConfiguration.jsonOption],
            discussion: "At a terminal the passcodes are asked for without echo, and a new one twice.\n"
                + "With --passcode-stdin, standard input holds one passcode per line: set reads\n"
                + "the new one; change reads the current one, then the new one; remove reads the\n"
                + "current one.")

        /// What to do with the passcode.
        enum Action: String { case set, change, remove }

        let action: String
        let passcodeFromStandardInput: Bool

        init(_ arguments: ParsedArguments) throws(UsageError) {
            guard arguments.positionals.count <= 1 else { throw PasscodeReader.positionalRefused }
            let words = try arguments.positionals(named: ["action"], minimum: 1, maximum: 1)
            action = words[0]
            passcodeFromStandardInput = arguments.flags.contains(PasscodeReader.option.name)
        }

        func validate() throws(UsageError) {
            guard Action(rawValue: action) != nil else {
                throw UsageError("unknown action '\(action)' (expected set, change or remove)")
            }
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let client = try context.connect()
            let reader = PasscodeReader(
                input: context.standardInput, prompts: context.standardError, fromStandardInput: passcodeFromStandardInput)
            var current: SecretBuffer?
            var new: SecretBuffer?
            switch Action(rawValue: action)! {
            case .set:
                new = try reader.readNew()
            case .change:
                current = try reader.read(prompt: "Current passcode: ")
                new = try reader.readNew()
            case .remove:
                current = try reader.read(prompt: "Current passcode: ")
            }
            let reply = try context.call(
                on: client, "io.widgetd.Device.SetPasscode", secrets: [("current", current), ("new", new)])
            current?.wipe()
            new?.wipe()
            if context.json { return context.printJSON(reply.parameters) }
            switch Action(rawValue: action)! {
            case .set: context.print("Passcode set.")
            case .change: context.print("Passcode changed.")
            case .remove: context.print("Passcode removed: timelines are no longer protected by a passcode.")
            }
        }
    }
}
