/// What a command is called, what it does, and what it accepts: the source of its help text.
struct CommandConfiguration {
    /// An option a command accepts.
    struct Option {
        /// The spelling, e.g. `--surface`.
        let name: String
        /// The value's placeholder, e.g. `surface`; `nil` for a flag.
        let valueName: String?
        /// One line of help.
        let help: String

        init(_ name: String, value: String? = nil, help: String) {
            self.name = name
            self.valueName = value
            self.help = help
        }
    }

    /// A positional argument, listed in the help's ARGUMENTS section.
    struct Argument {
        /// The placeholder, e.g. `widget`.
        let name: String
        /// One line of help.
        let help: String
    }

    /// The command's name, e.g. `get`.
    let name: String
    /// One line: what the command does.
    let abstract: String
    /// The usage after `widgetctl NAME`, e.g. `<widget> [--surface <surface>] [--json]`.
    let usage: String
    /// The positional arguments.
    var arguments: [Argument] = []
    /// The options, besides `--help`.
    var options: [Option] = []
    /// Paragraphs printed after the options.
    var discussion: String? = nil

    /// The `--json` option shared by every command that prints a result.
    static let jsonOption = Option("--json", help: "Print the result as JSON, for scripts.")
}
