/// A command line split into flags, option values and positional arguments.
///
/// The parser knows only what each command declares; a command then checks the
/// meaning of what it got in `validate()`.
struct ParsedArguments {
    /// Flags seen, e.g. `--yes`.
    var flags: Set<String> = []
    /// Option values, e.g. `--surface` → `lockScreen`.
    var values: [String: String] = [:]
    /// Positional arguments, in order.
    var positionals: [String] = []
    /// Whether `-h` or `--help` was given.
    var wantsHelp = false

    /// Splits `arguments` by the options of `configuration`.
    ///
    /// `--name=value` and `--name value` are both accepted; `--` ends options; a lone
    /// `-` is positional (standard input).
    init(_ arguments: [String], configuration: CommandConfiguration) throws(UsageError) {
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            if argument == "-h" || argument == "--help" { wantsHelp = true; continue }
            let (name, inlineValue) = Self.split(argument)
            guard let option = configuration.options.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '\(name)'")
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                flags.insert(name)
            } else if let inlineValue {
                values[name] = inlineValue
            } else if let next = remaining.popFirst() {
                values[name] = next
            } else {
                throw UsageError("missing value for '\(name) <\(option.valueName!)>'")
            }
        }
    }

    private static func split(_ argument: String) -> (String, String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// The positionals, checked to number between `minimum` and `maximum` (`nil`: no limit).
    func positionals(named names: [String], minimum: Int, maximum: Int?) throws(UsageError) -> [String] {
        if positionals.count < minimum {
            throw UsageError("missing argument <\(names[min(positionals.count, names.count - 1)])>")
        }
        if let maximum, positionals.count > maximum {
            throw UsageError("unexpected argument '\(positionals[maximum])'")
        }
        return positionals
    }
}
