import Testing
@testable import WidgetControl

@Suite struct HelpTests {
    /// Every subcommand that runs something, by the words that name it.
    static let commandPaths = [
        "status", "unlock", "lock", "passcode set", "passcode change", "passcode remove",
        "settings show", "settings set lock-screen-widgets", "settings set hide-sensitive-complications",
        "wipe", "monitor", "put", "append", "timeline", "delete", "providers", "actions", "list", "get", "watch",
        "reload", "act", "introspect", "call",
    ]

    @Test func theParserKnowsExactlyTheseCommands() {
        #expect(Widgetctl.runnableCommands.map { $0.path.joined(separator: " ") } == Self.commandPaths)
    }

    @Test func rootHelpIsExact() {
        let result = widgetctl(["--help"])
        #expect(result.exitCode == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput == """
            OVERVIEW: Control widgetd, the encrypted widget timeline store.

            Exit status: 0 success, 1 failure, 64 usage error, 65 wrong passcode, 66
            protected data unavailable (unlock first), 69 widgetd not reachable, 75 try
            again later (too many failed attempts), 77 permission denied. With --json, a
            failure also prints {"error": NAME, "parameters": {...}} on standard output.

            USAGE: widgetctl [--socket <path>] [--json] <subcommand>

            OPTIONS:
              --socket <path>         The daemon's socket (default: $WIDGETD_SOCKET, else
                                      /run/widgetd/widgetd.sock as root, else
                                      $XDG_RUNTIME_DIR/widgetd/widgetd.sock).
              --json                  Print results and errors as JSON, for scripts.
              --version               Show the version.
              -h, --help              Show help information.

            DEVICE SUBCOMMANDS:
              status                  Show lock state, class keys, attempts and settings.
              unlock                  Unlock the device with its passcode.
              lock                    Lock the device.
              passcode                Set, change or remove the device passcode.
              settings                Show or change what locked surfaces may show.
              wipe                    Erase every timeline for good (destroys the keys).
              monitor                 Follow lock state and settings changes as they happen.

            PROVIDER SUBCOMMANDS:
              put                     Replace a widget's timeline with the one in a file.
              append                  Add the entries in a file to a widget's timeline.
              timeline                Show a stored timeline as its provider sees it.
              delete                  Delete a widget's timeline.
              providers               List providers: class, owner, file, why disabled.
              actions                 Receive the actions hosts perform on your widgets.

            HOST SUBCOMMANDS:
              list                    List stored widgets: family, class, generation.
              get                     Preview a widget as a host would show it.
              watch                   Follow a widget's presentation as it changes.
              reload                  Ask providers to reload their timelines.
              act                     Perform a widget's action as a host would.

            VARLINK SUBCOMMANDS:
              introspect              Show the interfaces widgetd serves, or one's
                                      definition.
              call                    Call any Varlink method with JSON parameters.

              See 'widgetctl help <subcommand>' for detailed help.

            """)
    }

    @Test(arguments: commandPaths)
    func everyCommandHasHelp(path: String) {
        let words = path.split(separator: " ").map(String.init)
        let result = widgetctl(words + ["--help"])
        #expect(result.exitCode == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("OVERVIEW: "))
        #expect(result.standardOutput.contains("\nUSAGE: widgetctl \(path)"))
        #expect(result.standardOutput.contains("  --socket <path> "))
        #expect(result.standardOutput.contains("  --json "))
        #expect(result.standardOutput.hasSuffix("  -h, --help              Show help information.\n"))
        #expect(widgetctl(["help"] + words).standardOutput == result.standardOutput)
    }

    /// Wrapped to 80 columns, but for the usage line, which the parser never breaks.
    @Test(arguments: [[]] + commandPaths.map { $0.split(separator: " ").map(String.init) })
    func helpFitsAnEightyColumnTerminal(command: [String]) {
        let result = widgetctl(command + ["--help"])
        for line in result.standardOutput.split(separator: "\n") where !line.hasPrefix("USAGE: ") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    @Test func getHelpIsExact() {
        let result = widgetctl(["get", "-h"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            OVERVIEW: Preview a widget as a host would show it.

            A widget that is not stored is "no such widget" (exit 1) to its provider's user
            and to administrators; any other host is shown its placeholder.

            USAGE: widgetctl get <widget> [--surface <surface>] [--socket <path>] [--json]

            ARGUMENTS:
              <widget>                The widget id, PROVIDER/KIND[#INSTANCE].

            OPTIONS:
              --surface <surface>     The surface a host shows it on. (values: home-screen,
                                      lock-screen, always-on, remote; default: home-screen)
              --socket <path>         The daemon's socket (default: $WIDGETD_SOCKET, else
                                      /run/widgetd/widgetd.sock as root, else
                                      $XDG_RUNTIME_DIR/widgetd/widgetd.sock).
              --json                  Print results and errors as JSON, for scripts.
              --version               Show the version.
              -h, --help              Show help information.

            """)
    }

    @Test func passcodeChangeHelpIsExact() {
        #expect(widgetctl(["passcode", "change", "--help"]).standardOutput == """
            OVERVIEW: Change the passcode.

            With --passcode-stdin, standard input holds the current passcode, then the new
            one.

            USAGE: widgetctl passcode change [--passcode-stdin] [--socket <path>] [--json]

            OPTIONS:
              --passcode-stdin        Read passcodes from standard input, one per line.
              --socket <path>         The daemon's socket (default: $WIDGETD_SOCKET, else
                                      /run/widgetd/widgetd.sock as root, else
                                      $XDG_RUNTIME_DIR/widgetd/widgetd.sock).
              --json                  Print results and errors as JSON, for scripts.
              --version               Show the version.
              -h, --help              Show help information.

            """)
    }

    @Test(arguments: [["--version"], ["status", "--version"]])
    func versionPrintsOnStandardOutput(arguments: [String]) {
        let result = widgetctl(arguments)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "widgetctl 0.1.0\n")
    }

    @Test func helpNeedsNoDaemon() {
        let result = widgetctl(["status", "--help"], socket: "/nonexistent/widgetd.sock")
        #expect(result.exitCode == 0)
    }
}
