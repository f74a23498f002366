import Testing
import WidgetDaemon
@testable import WidgetdCommand

/// widgetd's command line, parsed by swift-argument-parser.
@Suite struct WidgetdCommandLineTests {
    /// Runs the parser on `arguments`: what it printed, where, and the exit code; the
    /// daemon is not started (a run returns 0 and records what it was given).
    private func widgetd(_ arguments: [String]) -> (code: Int32, output: String, error: String, ran: DaemonCommandLine?) {
        var output = "", error = ""
        var ran: DaemonCommandLine?
        let code = Widgetd.main(
            arguments: arguments, write: { text, toStandardError in if toStandardError { error += text } else { output += text } },
            run: { ran = $0; return 0 })
        return (code, output, error, ran)
    }

    @Test(arguments: [
        ([], DaemonCommandLine()),
        (["--config", "/c.conf", "--state-directory=/s", "--socket", "/x.sock"],
         { var c = DaemonCommandLine(); c.configurationFile = "/c.conf"; c.stateDirectory = "/s"; c.socketPath = "/x.sock"; return c }()),
        (["--check-config", "--config", "/c.conf"],
         { var c = DaemonCommandLine(); c.action = .checkConfiguration; c.configurationFile = "/c.conf"; return c }()),
        (["--start-over"], { var c = DaemonCommandLine(); c.startOver = true; return c }()),
    ])
    func parsesValidCommandLines(arguments: [String], expected: DaemonCommandLine) {
        let result = widgetd(arguments)
        #expect(result.code == 0)
        #expect(result.ran == expected)
    }

    /// Each wrong command line and the first line the parser prints: exit 64, nothing run.
    @Test(arguments: [
        (["--frobnicate"], "Error: Unknown option '--frobnicate'"),
        (["--config"], "Error: Missing value for '--config <file>'"),
        (["--config", "--socket", "/x"], "Error: Missing value for '--config <file>'"),
        (["--socket="], "Error: Missing value for '--socket <path>'"),
        (["--socket", ""], "Error: option '--socket' needs a value"),
        (["extra"], "Error: Unexpected argument 'extra'"),
    ])
    func rejectsInvalidCommandLines(arguments: [String], firstLine: String) {
        let result = widgetd(arguments)
        #expect(result.code == 64)
        #expect(result.output == "")
        #expect(result.error.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.error.hasSuffix("See 'widgetd --help' for more information.\n"))
        #expect(result.ran == nil)
    }

    @Test func helpIsExactOnStandardOutput() {
        let result = widgetd(["--help"])
        #expect(result.code == 0)
        #expect(result.error == "")
        #expect(result.ran == nil)
        #expect(result.output == """
            OVERVIEW: Store widget timelines encrypted per data-protection class and serve
            them over Varlink.

            USAGE: widgetd [--config <file>] [--state-directory <directory>] [--socket <path>]
                   widgetd --start-over [--config <file>] [--state-directory <directory>]
                   widgetd --check-config [--config <file>]

            OPTIONS:
              --config <file>         Configuration file (default:
                                      /etc/widgetd/widgetd.conf as root, else
                                      $XDG_CONFIG_HOME/widgetd/widgetd.conf).
              --state-directory <directory>
                                      State directory (default: /var/lib/widgetd as root,
                                      else $XDG_STATE_HOME/widgetd).
              --socket <path>         Socket to listen on when not socket-activated
                                      (default: /run/widgetd/widgetd.sock as root, else
                                      $XDG_RUNTIME_DIR/widgetd/widgetd.sock).
              --check-config          Check the configuration, its drop-ins and
                                      providers.d/, print every problem, and exit: 1 if
                                      there is an error, 0 otherwise (warnings are printed
                                      too). Starts nothing.
              --start-over            If the keybag is missing while timelines remain,
                                      erase them and the journal (no key can read them) and
                                      make a new keybag, instead of refusing to start. If
                                      the catalog alone is missing, rebuild it from the
                                      timeline files at the first unlock with the passcode
                                      (placeholders only until then).
              --version               Show the version.
              -h, --help              Show help information.

            """)
    }

    @Test(arguments: [["--version"], ["--config", "/c.conf", "--version"]])
    func versionWinsAndNamesTheProgram(arguments: [String]) {
        let result = widgetd(arguments)
        #expect(result.code == 0)
        #expect(result.output == "widgetd \(Daemon.version)\n")
        #expect(result.ran == nil)
    }

    @Test func optionsOverrideTheDefaultPaths() throws {
        let line = try #require(widgetd(["--socket", "/tmp/w.sock"]).ran)
        #expect(line.paths(defaults: .system) == DaemonPaths(
            configurationFile: "/etc/widgetd/widgetd.conf", stateDirectory: "/var/lib/widgetd",
            socketPath: "/tmp/w.sock"))
    }
}
