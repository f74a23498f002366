/// The root command: global options, the list of subcommands, and dispatch.
enum Widgetctl {
    /// What `--version` prints.
    static let version = "widgetctl 0.1.0"

    /// The root usage line.
    static let usage = "widgetctl [--socket <path>] [--json] <command> ..."

    /// The subcommands by group, in the order `--help` lists them.
    static var groups: [(title: String, commands: [any Command.Type])] {[
        ("DEVICE COMMANDS", [Status.self, Unlock.self, Lock.self, Passcode.self, Settings.self, Wipe.self, Monitor.self]),
        ("PROVIDER COMMANDS", [Put.self, Append.self, Timeline.self, Delete.self]),
        ("HOST COMMANDS", [List.self, Get.self, Watch.self, Reload.self]),
    ]}

    /// Every subcommand.
    static var commands: [any Command.Type] { groups.flatMap(\.commands) }

    /// `widgetctl --help`.
    static var help: String {
        var text = "OVERVIEW: Control widgetd, the encrypted widget timeline store.\n\n"
        text += "USAGE: \(usage)\n\n"
        text += "OPTIONS:\n"
        text += HelpText.row("--socket <path>", "The daemon's socket (default: $WIDGETD_SOCKET, else")
        text += HelpText.row("", "/run/widgetd/widgetd.sock as root, else")
        text += HelpText.row("", "$XDG_RUNTIME_DIR/widgetd/widgetd.sock).")
        text += HelpText.row("--json", "Print results as JSON, for scripts.")
        text += HelpText.row("--version", "Show the version.")
        text += HelpText.row("-h, --help", "Show help information.")
        for group in groups {
            text += "\n\(group.title):\n"
            for command in group.commands {
                text += HelpText.row(command.configuration.name, command.configuration.abstract)
            }
        }
        text += "\nEXIT STATUS:\n"
        text += "  0 success, 1 failure, 64 usage error, 69 widgetd not reachable,\n"
        text += "  77 permission denied.\n"
        text += "\n  See 'widgetctl help <command>' for detailed help.\n"
        return text
    }

    /// Runs one command line; returns the exit code.
    static func main(
        arguments: [String], environment: [String: String], standardInput: any InputSource,
        standardOutput: any TextSink, standardError: any TextSink, isTerminal: Bool, userID: UInt32
    ) -> Int32 {
        var socketOption: String?
        var json = false
        var remaining = arguments[...]
        // Global options come before the command.
        while let first = remaining.first, first.hasPrefix("-") {
            remaining.removeFirst()
            switch first {
            case "-h", "--help":
                standardOutput.write(help)
                return ExitCode.success.rawValue
            case "--version":
                standardOutput.write(version + "\n")
                return ExitCode.success.rawValue
            case "--json":
                json = true
            case "--socket":
                guard let path = remaining.popFirst() else {
                    return usageError(UsageError("missing value for '--socket <path>'"), nil, standardError)
                }
                socketOption = path
            case _ where first.hasPrefix("--socket="):
                socketOption = String(first.dropFirst("--socket=".count))
            default:
                return usageError(UsageError("unknown option '\(first)'"), nil, standardError)
            }
        }
        guard let name = remaining.popFirst() else {
            return usageError(UsageError("missing command"), nil, standardError)
        }
        if name == "help" {
            guard let topic = remaining.first else {
                standardOutput.write(help)
                return ExitCode.success.rawValue
            }
            guard let command = commands.first(where: { $0.configuration.name == topic }) else {
                return usageError(UsageError("unknown command '\(topic)'"), nil, standardError)
            }
            standardOutput.write(HelpText.help(for: command.configuration))
            return ExitCode.success.rawValue
        }
        guard let type = commands.first(where: { $0.configuration.name == name }) else {
            return usageError(UsageError("unknown command '\(name)'"), nil, standardError)
        }
        let configuration = type.configuration
        let command: any Command
        do {
            let parsed = try ParsedArguments(Array(remaining), configuration: configuration)
            if parsed.wantsHelp {
                standardOutput.write(HelpText.help(for: configuration))
                return ExitCode.success.rawValue
            }
            json = json || parsed.flags.contains(CommandConfiguration.jsonOption.name)
            command = try type.init(parsed)
            try command.validate()
        } catch {
            return usageError(error, configuration, standardError)
        }
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let context = CommandContext(
            standardOutput: standardOutput, standardError: standardError, standardInput: standardInput,
            json: json, color: isTerminal && !noColor && environment["TERM"] != "dumb",
            socketPath: SocketLocation.resolve(option: socketOption, environment: environment, userID: userID),
            redraws: isTerminal && environment["TERM"] != "dumb")
        do {
            try command.run(context)
            return ExitCode.success.rawValue
        } catch {
            standardError.write("widgetctl: \(error.message)\n")
            return error.exitCode.rawValue
        }
    }

    private static func usageError(
        _ error: UsageError, _ configuration: CommandConfiguration?, _ standardError: any TextSink
    ) -> Int32 {
        standardError.write(HelpText.usageError(error, configuration: configuration))
        return ExitCode.usage.rawValue
    }
}
