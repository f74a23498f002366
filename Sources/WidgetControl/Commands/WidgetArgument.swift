import ArgumentParser

/// The `<widget>` help shared by the commands that take one, completed from the daemon.
enum WidgetArgument {
    /// Its help line.
    static let help = ArgumentHelp("The widget id, PROVIDER/KIND[#INSTANCE].")
    /// Stored widget ids from the live daemon.
    static let completion = CompletionKind.custom(WidgetCompletion.widgets)
}
