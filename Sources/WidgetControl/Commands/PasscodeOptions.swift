import ArgumentParser

extension Widgetctl {
    /// `--passcode-stdin`, and the refusal of a passcode given as an argument.
    ///
    /// Words after the command are collected only to be refused, without being echoed:
    /// a passcode on the command line is visible to other users in `ps`.
    struct PasscodeOptions: ParsableArguments {
        @Flag(name: .customLong("passcode-stdin"), help: "Read passcodes from standard input, one per line.")
        var fromStandardInput = false

        @Argument(help: ArgumentHelp(visibility: .private))
        var refused: [String] = []

        /// The usage error for a passcode given as an argument.
        static let positionalRefused = ValidationError(
            "a passcode is never taken from the command line (other users could see it in 'ps'); "
                + "type it when asked, or pipe it with --passcode-stdin")

        func validate() throws {
            guard refused.isEmpty else { throw Self.positionalRefused }
        }

        /// A reader for these options.
        func reader(_ context: CommandContext) -> PasscodeReader {
            PasscodeReader(input: context.standardInput, prompts: context.standardError, fromStandardInput: fromStandardInput)
        }
    }
}
