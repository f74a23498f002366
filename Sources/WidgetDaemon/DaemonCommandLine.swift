/// What `widgetd`'s command line asks for, once parsed (the parser is the
/// `WidgetdCommand` module's, on swift-argument-parser).
///
/// A plain value, so that the daemon, and the fuzzers that build this module with
/// `swiftc`, need no package: `Daemon.main` only runs it.
package struct DaemonCommandLine: Sendable, Equatable {
    /// What the command line asks for (help and `--version` are the parser's).
    package enum Action: Sendable, Equatable {
        /// Run the daemon.
        case run
        /// Check the configuration, print every problem, and exit: 0 when it has no
        /// error (warnings are printed too), 1 when it has one (`--check-config`).
        case checkConfiguration
    }

    /// What to do.
    package var action: Action = .run
    /// `--config FILE`: overrides the default configuration file.
    package var configurationFile: String?
    /// `--state-directory DIR`: overrides the default state directory.
    package var stateDirectory: String?
    /// `--socket PATH`: overrides the default socket path (ignored under socket activation).
    package var socketPath: String?
    /// `--start-over`: if the keybag is missing while timelines or journaled writes
    /// remain, erase them and make a new keybag instead of refusing to start; if the
    /// catalog alone is missing, rebuild it once the passcode proves the keybag.
    package var startOver = false

    /// Creates a command line running with every default.
    package init() {}

    /// The paths to use: the options given, the defaults for the rest.
    package func paths(defaults: DaemonPaths) -> DaemonPaths {
        DaemonPaths(
            configurationFile: configurationFile ?? defaults.configurationFile,
            stateDirectory: stateDirectory ?? defaults.stateDirectory,
            socketPath: socketPath ?? defaults.socketPath)
    }
}
