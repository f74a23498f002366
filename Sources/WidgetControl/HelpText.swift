/// Help and usage text in swift-argument-parser's layout.
enum HelpText {
    /// The column where option and argument help starts.
    static let helpColumn = 26

    /// `--help` for one command.
    static func help(for configuration: CommandConfiguration) -> String {
        var text = "OVERVIEW: \(configuration.abstract)\n\n"
        text += "USAGE: \(usageLine(for: configuration))\n"
        if !configuration.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in configuration.arguments { text += row("<\(argument.name)>", argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in configuration.options {
            text += row(option.valueName.map { "\(option.name) <\($0)>" } ?? option.name, option.help)
        }
        text += row("-h, --help", "Show help information.")
        if let discussion = configuration.discussion { text += "\n\(discussion)\n" }
        return text
    }

    /// `widgetctl NAME USAGE`.
    static func usageLine(for configuration: CommandConfiguration) -> String {
        "widgetctl \(configuration.name)" + (configuration.usage.isEmpty ? "" : " \(configuration.usage)")
    }

    /// What a usage error prints on standard error.
    static func usageError(_ error: UsageError, configuration: CommandConfiguration?) -> String {
        var text = "Error: \(error.message)\n"
        if let configuration {
            text += "Usage: \(usageLine(for: configuration))\n"
            text += "  See 'widgetctl \(configuration.name) --help' for more information.\n"
        } else {
            text += "Usage: \(Widgetctl.usage)\n"
            text += "  See 'widgetctl --help' for more information.\n"
        }
        return text
    }

    /// One aligned two-column row.
    static func row(_ left: String, _ right: String) -> String {
        let label = "  " + left
        if label.count + 2 > helpColumn {
            return label + "\n" + String(repeating: " ", count: helpColumn) + right + "\n"
        }
        return label + String(repeating: " ", count: helpColumn - label.count) + right + "\n"
    }
}
