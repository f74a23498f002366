extension Widgetctl {
    /// `widgetctl unlock`: releases the protected classes' keys.
    struct Unlock: Command {
        static let configuration = CommandConfiguration(
            name: "unlock", abstract: "Unlock the device with its passcode.",
            usage: "[--passcode-stdin] [--json]",
            options: [PasscodeReader.option, CommandConfiguration.jsonOption],
            discussion: "The passcode is read from the terminal without echo, or from standard input\n"
                + "with --passcode-stdin; never from the command line.")

        let passcodeFromStandardInput: Bool

        init(_ arguments: ParsedArguments) throws(UsageError) {
            guard arguments.positionals.isEmpty else { throw PasscodeReader.positionalRefused }
            passcodeFromStandardInput = arguments.flags.contains(PasscodeReader.option.name)
        }

        func run(_ context: CommandContext) throws(CommandFailure) {
            let client = try context.connect()
            let reader = PasscodeReader(
                input: context.standardInput, prompts: context.standardError, fromStandardInput: passcodeFromStandardInput)
            let passcode = try reader.read(prompt: "Passcode: ")
            let reply = try context.call(on: client, "io.widgetd.Device.Unlock", secrets: [("passcode", passcode)])
            passcode.wipe()
            if context.json { return context.printJSON(reply.parameters) }
            context.print("Unlocked.")
        }
    }
}
