import Testing
@testable import WidgetControl

@Suite struct HelpTests {
    static let commandNames = [
        "status", "unlock", "lock", "passcode", "settings", "wipe", "monitor",
        "put", "append", "timeline", "delete", "list", "get", "watch", "reload",
    ]

    @Test func rootHelpListsEveryCommandOnStandardOutput() {
        let result = widgetctl(["--help"])
        #expect(result.exitCode == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix(
            "OVERVIEW: Control widgetd, the encrypted widget timeline store.\n\n"
                + "USAGE: widgetctl [--socket <path>] [--json] <command> ...\n"))
        for name in Self.commandNames {
            #expect(result.standardOutput.contains("\n  \(name) "), "missing \(name)")
        }
        #expect(Widgetctl.commands.map { $0.configuration.name }.sorted() == Self.commandNames.sorted())
    }

    @Test(arguments: commandNames)
    func everyCommandHasHelp(name: String) {
        let result = widgetctl([name, "--help"])
        #expect(result.exitCode == 0)
        #expect(result.standardError == "")
        #expect(result.standardOutput.hasPrefix("OVERVIEW: "))
        #expect(result.standardOutput.contains("\nUSAGE: widgetctl \(name)"))
        #expect(result.standardOutput.hasSuffix("  -h, --help              Show help information.\n")
            || result.standardOutput.contains("  -h, --help              Show help information.\n\n"))
        #expect(widgetctl(["help", name]).standardOutput == result.standardOutput)
    }

    @Test(arguments: [[]] + commandNames.map { [$0] })
    func helpFitsAnEightyColumnTerminal(command: [String]) {
        let result = widgetctl(command + ["--help"])
        for line in result.standardOutput.split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    @Test func getHelpIsExact() {
        let result = widgetctl(["get", "-h"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            OVERVIEW: Preview a widget as a host would show it.

            USAGE: widgetctl get <widget> [--surface <surface>] [--json]

            ARGUMENTS:
              <widget>                The widget id, PROVIDER/KIND[#INSTANCE].

            OPTIONS:
              --surface <surface>     homeScreen (default), lockScreen, alwaysOn or remote.
              --json                  Print the result as JSON, for scripts.
              -h, --help              Show help information.

            """)
    }

    @Test func unlockHelpIsExact() {
        #expect(widgetctl(["unlock", "--help"]).standardOutput == """
            OVERVIEW: Unlock the device with its passcode.

            USAGE: widgetctl unlock [--passcode-stdin] [--json]

            OPTIONS:
              --passcode-stdin        Read passcodes from standard input, one per line.
              --json                  Print the result as JSON, for scripts.
              -h, --help              Show help information.

            The passcode is read from the terminal without echo, or from standard input
            with --passcode-stdin; never from the command line.

            """)
    }

    @Test func versionPrintsOnStandardOutput() {
        let result = widgetctl(["--version"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "widgetctl 0.1.0\n")
    }

    @Test func helpNeedsNoDaemon() {
        let result = widgetctl(["status", "--help"], socket: "/nonexistent/widgetd.sock")
        #expect(result.exitCode == 0)
    }
}
