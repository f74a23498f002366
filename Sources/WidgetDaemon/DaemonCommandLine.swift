/// `widgetd [--config FILE] [--state-directory DIR] [--socket PATH] [--start-over] [--check-config] [--help] [--version]`.
///
/// Parsing is apart from running: `main` parses, prints help (stdout, exit 0) or a
/// usage error (stderr, exit 64), and only then starts the daemon.
public struct DaemonCommandLine: Sendable, Equatable {
    /// What the command line asks for.
    public enum Action: Sendable, Equatable {
        /// Run the daemon.
        case run
        /// Print ``DaemonCommandLine/helpText`` and exit 0.
        case help
        /// Print the version and exit 0.
        case version
        /// Check the configuration, print every problem, and exit: 0 when it has no
        /// error (warnings are printed too), 1 when it has one (`--check-config`).
        case checkConfiguration
    }

    /// What to do.
    public var action: Action = .run
    /// `--config FILE`: overrides the default configuration file.
    public var configurationFile: String?
    /// `--state-directory DIR`: overrides the default state directory.
    public var stateDirectory: String?
    /// `--socket PATH`: overrides the default socket path (ignored under socket activation).
    public var socketPath: String?
    /// `--start-over`: if the keybag is missing while timelines or journaled writes
    /// remain, erase them and make a new keybag instead of refusing to start.
    public var startOver = false

    /// The exit status for usage errors (`EX_USAGE`).
    public static let usageExitCode: Int32 = 64

    /// A command line that cannot be run.
    public enum UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        /// An option widgetd does not have.
        case unknownOption(String)
        /// An option given without its value.
        case missingValue(String)
        /// A positional argument; widgetd takes none.
        case unexpectedArgument(String)
        /// An option given twice.
        case repeatedOption(String)

        /// The message printed after `widgetd: `.
        public var description: String {
            switch self {
            case .unknownOption(let option): "unknown option '\(option)'"
            case .missingValue(let option): "option '\(option)' needs a value"
            case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
            case .repeatedOption(let option): "option '\(option)' given more than once"
            }
        }
    }

    /// The help text, printed for `--help`.
    public static let helpText = """
        USAGE: widgetd [--config FILE] [--state-directory DIR] [--socket PATH] [--start-over]
               widgetd --check-config [--config FILE]

        Stores widget timelines encrypted per data-protection class and serves them
        over Varlink.

        OPTIONS:
          --config FILE            Configuration file (default: /etc/widgetd/widgetd.conf
                                   as root, else $XDG_CONFIG_HOME/widgetd/widgetd.conf).
          --state-directory DIR    State directory (default: /var/lib/widgetd as root,
                                   else $XDG_STATE_HOME/widgetd).
          --socket PATH            Socket to listen on when not socket-activated (default:
                                   /run/widgetd/widgetd.sock as root, else
                                   $XDG_RUNTIME_DIR/widgetd/widgetd.sock).
          --start-over             If the keybag is missing while timelines remain, erase
                                   them and the journal (no key can read them) and make
                                   a new keybag, instead of refusing to start. Nothing
                                   happens while the keybag is there.
          --check-config           Check the configuration, its drop-ins and providers.d/,
                                   print every problem, and exit: 1 if there is an error,
                                   0 otherwise (warnings are printed too). Starts nothing.
          -h, --help               Show this help and exit.
          --version                Show the version and exit.

        """

    /// Creates a command line running with every default.
    public init() {}

    /// Parses the arguments after the program name. `--opt VALUE` and `--opt=VALUE` are
    /// both accepted; `--help` and `--version` win over everything else.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonCommandLine {
        var result = DaemonCommandLine()
        var index = 0
        var wantsHelp = false
        var wantsVersion = false
        var wantsCheck = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let name: String
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            func value() throws(UsageError) -> String {
                if let inlineValue {
                    guard !inlineValue.isEmpty else { throw .missingValue(name) }
                    return inlineValue
                }
                guard index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" else {
                    throw .missingValue(name)
                }
                index += 1
                return arguments[index - 1]
            }
            func set(_ path: inout String?) throws(UsageError) {
                guard path == nil else { throw .repeatedOption(name) }
                path = try value()
            }
            switch name {
            case "-h", "--help":
                guard inlineValue == nil else { throw .unknownOption(argument) }
                wantsHelp = true
            case "--version":
                guard inlineValue == nil else { throw .unknownOption(argument) }
                wantsVersion = true
            case "--check-config":
                guard inlineValue == nil else { throw .unknownOption(argument) }
                wantsCheck = true
            case "--config": try set(&result.configurationFile)
            case "--state-directory": try set(&result.stateDirectory)
            case "--socket": try set(&result.socketPath)
            case "--start-over":
                guard inlineValue == nil else { throw .unknownOption(argument) }
                guard !result.startOver else { throw .repeatedOption(name) }
                result.startOver = true
            default:
                if name.hasPrefix("-") { throw .unknownOption(name) }
                throw .unexpectedArgument(argument)
            }
        }
        if wantsHelp {
            result.action = .help
        } else if wantsVersion {
            result.action = .version
        } else if wantsCheck {
            result.action = .checkConfiguration
        }
        return result
    }

    /// The paths to use: the options given, the defaults for the rest.
    public func paths(defaults: DaemonPaths) -> DaemonPaths {
        DaemonPaths(
            configurationFile: configurationFile ?? defaults.configurationFile,
            stateDirectory: stateDirectory ?? defaults.stateDirectory,
            socketPath: socketPath ?? defaults.socketPath)
    }
}
