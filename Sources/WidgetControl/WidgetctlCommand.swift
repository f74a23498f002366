import ArgumentParser

/// One `widgetctl` subcommand that does something, in swift-argument-parser's shape.
///
/// The parser fills the properties and calls `validate()`, which checks their meaning
/// without touching the daemon (a usage error exits 64); `run(_:)` then talks to the
/// daemon and prints, through the context, so that tests run it in-process.
protocol WidgetctlCommand: ParsableCommand {
    /// `--socket` and `--json`.
    var global: GlobalOptions { get }
    /// Does the work and prints the result.
    func run(_ context: CommandContext) throws(CommandFailure)
}

/// Checks that `text` is a widget id, with the reason a person can act on.
func validateWidgetID(_ text: String) throws(ValidationError) {
    do { _ = try WidgetIDCheck.check(text) } catch { throw ValidationError("\(error.description): '\(text)'") }
}

/// A command that only groups subcommands (`passcode`, `settings set`, the root itself):
/// named alone, it is a usage error that shows its usage.
protocol WidgetctlGroup: ParsableCommand {
    /// The words that name it, e.g. `widgetctl passcode`.
    static var commandPath: String { get }
}
