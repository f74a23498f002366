/// One `widgetctl` subcommand, in swift-argument-parser's shape.
///
/// Parsing (`init`) only sorts the words; `validate()` checks their meaning without
/// touching the daemon; `run` talks to the daemon and prints. Usage errors exit 64.
protocol Command {
    /// Name, help and accepted options.
    static var configuration: CommandConfiguration { get }
    /// Takes the command's words; throws when their number or shape is wrong.
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Checks the values (widget ids, surfaces, settings) before anything is sent.
    func validate() throws(UsageError)
    /// Does the work and prints the result.
    func run(_ context: CommandContext) throws(CommandFailure)
}

extension Command {
    func validate() throws(UsageError) {}
}

/// Checks that `text` is a widget id, with the reason a person can act on.
func validateWidgetID(_ text: String) throws(UsageError) {
    do { _ = try WidgetIDCheck.check(text) } catch { throw UsageError("\(error.description): '\(text)'") }
}
