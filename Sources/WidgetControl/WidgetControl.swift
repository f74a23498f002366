import ArgumentParser
import FoundationEssentials
import Glibc
import WidgetModel
import WidgetdWire

/// The `widgetctl` client: every command, runnable in-process.
package enum WidgetControl {
    /// Runs one command line and returns its exit code (see `ExitCode`).
    ///
    /// The parser reads the line; help, `--version` and completion scripts go to
    /// `stdout` (exit 0), usage errors to `stderr` (exit 64); a command's failure is one
    /// line on `stderr`, and with `--json` also an error object on `stdout`.
    ///
    /// - Parameters:
    ///   - arguments: the words after the program name.
    ///   - environment: `WIDGETD_SOCKET`, `XDG_RUNTIME_DIR`, `NO_COLOR`, `TERM` are read.
    ///   - stdin: passcodes (`--passcode-stdin` or typed at a terminal) and timelines given as `-`.
    ///   - stdout: results.
    ///   - stderr: errors, usage and prompts.
    ///   - isTerminal: whether standard output is a terminal (colour, and redrawn previews).
    ///   - userID: whose default socket to use; root's is the system one.
    ///   - columns: the width help is wrapped to; `nil` asks the terminal.
    ///   - clock: the time `monitor` and `watch` stamp their events with.
    ///   - utcOffset: the local time zone's offset from UTC at a date, in seconds
    ///     (previews show local dates); the process's zone by default.
    package static func run(
        arguments: [String], environment: [String: String], stdin: some InputSource,
        stdout: some TextSink, stderr: some TextSink, isTerminal: Bool, userID: UInt32 = getuid(),
        columns: Int? = 80, clock: @escaping () -> Date = Date.init,
        utcOffset: @escaping (Date) -> Int = LocalTime.offset(at:)
    ) -> Int32 {
        let parsed: any ParsableCommand
        do {
            parsed = try Widgetctl.parseAsRoot(CompletionRequest.normalized(arguments))
        } catch {
            return report(parserError: error, arguments: arguments, stdout: stdout, stderr: stderr, columns: columns)
        }
        guard let command = parsed as? any WidgetctlCommand else {
            if let group = parsed as? any WidgetctlGroup {
                // A group named without one of its subcommands: a usage error, as git and systemctl say.
                return report(
                    parserError: ValidationError("missing subcommand"), of: type(of: group), arguments: arguments,
                    stdout: stdout, stderr: stderr, columns: columns)
            }
            // The parser's own commands (`help`) print and end by throwing.
            var builtIn = parsed
            do {
                try builtIn.run()
                return ExitCode.success.rawValue
            } catch {
                return report(parserError: error, arguments: arguments, stdout: stdout, stderr: stderr, columns: columns)
            }
        }
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let context = CommandContext(
            standardOutput: stdout, standardError: stderr, standardInput: stdin,
            json: command.global.json, color: isTerminal && !noColor && environment["TERM"] != "dumb",
            socketPath: SocketLocation.resolve(option: command.global.socket, environment: environment, userID: userID),
            redraws: isTerminal && environment["TERM"] != "dumb", clock: clock,
            columns: columns ?? TerminalWidth.current(isTerminal: isTerminal, environment: environment), utcOffset: utcOffset)
        do {
            try command.run(context)
            return ExitCode.success.rawValue
        } catch {
            var error = error
            if error.name == WidgetdErrorName.providerNotRegistered.fullName,
               let reply = try? context.call(.listProviders),
               let list = try? context.decode(ProviderListReply.self, from: reply) {
                error = DaemonErrorMessage.providerNotRegistered(error, disabled: list.disabled ?? [])
            }
            if error.name == CommandFailure.Name.daemonUnavailable,
               SocketLocation.guessedRuntimeDirectory(option: command.global.socket, environment: environment, userID: userID) {
                error = error.adding(
                    "; XDG_RUNTIME_DIR is not set (su, ssh without logind, a container), so widgetctl looked in /run/user/\(userID): set it, or give --socket")
            }
            stderr.write("widgetctl: \(error.message)\n")
            if context.json { context.printJSON(error.json) }
            return error.exitCode.rawValue
        }
    }

    /// Runs the process's own command line on its own standard streams.
    package static func main() -> Int32 {
        run(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfoEnvironment.current,
            stdin: FileDescriptorInput(fileDescriptor: STDIN_FILENO), stdout: FileDescriptorSink.standardOutput,
            stderr: FileDescriptorSink.standardError, isTerminal: isatty(STDOUT_FILENO) == 1, columns: nil)
    }

    /// Prints what the parser says about `error` as the parser's own `main` would (help
    /// on standard output with 0, usage errors on standard error with 64), and with
    /// `--json` on the line, a usage error's object on standard output.
    private static func report(
        parserError error: any Error, of group: (any WidgetctlGroup.Type)? = nil, arguments: [String],
        stdout: any TextSink, stderr: any TextSink, columns: Int?
    ) -> Int32 {
        var text = Widgetctl.fullMessage(for: error, columns: columns)
        let code = Widgetctl.exitCode(for: error).rawValue
        if let group {
            // The parser would name the root's usage for an error it did not raise: name the group's.
            text = "Error: \(Widgetctl.message(for: error))\nUsage: \(Widgetctl.usageString(for: group))\n"
                + "  See '\(group.commandPath) --help' for more information."
        }
        if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
        if code == ExitCode.success.rawValue {
            stdout.write(text)
            return code
        }
        if group == nil, let unknown = CommandSuggestion.unknownCommand(in: arguments) {
            // A mistyped command reads as an unexpected argument to the parser: name it as
            // what it is, and the command meant.
            let suggestion = CommandSuggestion.closest(to: unknown).map { "; did you mean '\($0)'?" } ?? ""
            let rest = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first ?? ""
            text = "Error: unknown command '\(unknown)'\(suggestion)\n" + rest
        } else if let unknown = CommandSuggestion.unknownSetting(in: arguments) {
            let suggestion = NameSuggestion.closest(to: unknown, among: CommandSuggestion.settingNames)
                .map { "; did you mean '\($0)'?" } ?? " (settings: \(CommandSuggestion.settingNames.joined(separator: ", ")))"
            let rest = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first ?? ""
            text = "Error: unknown setting '\(unknown)'\(suggestion)\n" + rest
        }
        stderr.write(text)
        if arguments.prefix(while: { $0 != "--" }).contains("--json") {
            let message = Widgetctl.message(for: error)
            let failure = CommandFailure(message, exitCode: code == ExitCode.usage.rawValue ? .usage : .failure)
            stdout.write(JSONText.compact(failure.json) + "\n")
        }
        return code
    }
}
