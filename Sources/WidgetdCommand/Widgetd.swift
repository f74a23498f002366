import ArgumentParser
import Glibc
import WidgetDaemon

/// `widgetd`'s command line on swift-argument-parser: its options, help and `--version`.
///
/// Parsing is apart from running: ``main(arguments:environment:)`` parses, prints help
/// (standard output, exit 0) or a usage error (standard error, exit 64), and only then
/// hands a ``DaemonCommandLine`` to `Daemon.main`.
package struct Widgetd: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "widgetd",
        abstract: "Store widget timelines encrypted per data-protection class and serve them over Varlink.",
        usage: """
            widgetd [--config <file>] [--state-directory <directory>] [--socket <path>]
            widgetd --start-over [--config <file>] [--state-directory <directory>]
            widgetd --check-config [--config <file>]
            """,
        version: "widgetd \(Daemon.version)")

    @Option(
        help: ArgumentHelp(
            "Configuration file (default: /etc/widgetd/widgetd.conf as root, else $XDG_CONFIG_HOME/widgetd/widgetd.conf).",
            valueName: "file"),
        completion: .file(extensions: ["conf"]))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "State directory (default: /var/lib/widgetd as root, else $XDG_STATE_HOME/widgetd).",
            valueName: "directory"),
        completion: .directory)
    var stateDirectory: String?

    @Option(
        help: ArgumentHelp(
            "Socket to listen on when not socket-activated (default: /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    @Flag(help: """
        Check the configuration, its drop-ins and providers.d/, print every problem, and \
        exit: 1 if there is an error, 0 otherwise (warnings are printed too). Starts nothing.
        """)
    var checkConfig = false

    @Flag(help: """
        If the keybag is missing while timelines remain, erase them and the journal (no \
        key can read them) and make a new keybag, instead of refusing to start. If the \
        catalog alone is missing, rebuild it from the timeline files at the first unlock \
        with the passcode (placeholders only until then).
        """)
    var startOver = false

    package init() {}

    package func validate() throws {
        for (name, value) in [("--config", config), ("--state-directory", stateDirectory), ("--socket", socket)] {
            if value?.isEmpty == true { throw ValidationError("option '\(name)' needs a value") }
        }
    }

    /// What the daemon is asked to do.
    package var commandLine: DaemonCommandLine {
        var line = DaemonCommandLine()
        line.action = checkConfig ? .checkConfiguration : .run
        line.configurationFile = config
        line.stateDirectory = stateDirectory
        line.socketPath = socket
        line.startOver = startOver
        return line
    }

    /// Parses `arguments` (after the program name) and runs; returns the exit code.
    ///
    /// `write` receives what the parser prints and whether it goes to standard error.
    package static func main(
        arguments: [String], write: (String, _ toStandardError: Bool) -> Void = Widgetd.write,
        run: (DaemonCommandLine) -> Int32 = { Daemon.main($0) }
    ) -> Int32 {
        let parsed: Widgetd
        do {
            parsed = try parse(arguments)
        } catch {
            var text = fullMessage(for: error)
            if !text.isEmpty, !text.hasSuffix("\n") { text += "\n" }
            let code = exitCode(for: error).rawValue
            write(text, code != 0)
            return code
        }
        return run(parsed.commandLine)
    }

    /// Writes to standard output or standard error, unbuffered.
    package static func write(_ text: String, toStandardError: Bool) {
        var bytes = Array(text.utf8)[...]
        let descriptor = toStandardError ? STDERR_FILENO : STDOUT_FILENO
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 { if errno == EINTR { continue } else { return } }
            bytes = bytes.dropFirst(written)
        }
    }
}
