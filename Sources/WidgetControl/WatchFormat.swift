import ArgumentParser

/// How `widgetctl watch` prints each presentation (`--format`).
enum WatchFormat: String, ExpressibleByArgument, CaseIterable {
    /// The boxed preview a person reads, stamped with its time (`--json`: JSON, stamped).
    case text
    /// The presentation as the daemon sent it, one JSON object per line.
    case json
    /// One line of Waybar's custom-module JSON (`text`, `tooltip`, `class`, `alt`) per presentation.
    case waybar

    /// The shells offer every format.
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
}
