import ArgumentParser

/// `--socket` and `--json`: accepted before or after any subcommand's name.
///
/// The root command and every subcommand include this group; the parser decodes it
/// once, wherever on the line the options stand, and hands the same value down.
struct GlobalOptions: ParsableArguments {
    /// `--socket PATH`: overrides `WIDGETD_SOCKET` and the defaults (``SocketLocation``).
    @Option(
        help: ArgumentHelp(
            "The daemon's socket (default: $WIDGETD_SOCKET, else /run/widgetd/widgetd.sock as root, else $XDG_RUNTIME_DIR/widgetd/widgetd.sock).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    /// `--json`: results, and errors, as one JSON object per line on standard output.
    @Flag(help: "Print results and errors as JSON, for scripts.")
    var json = false
}
