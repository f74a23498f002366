import ArgumentParser

/// The `<file>` of `put` and `append`: a path, or `-` for standard input.
enum TimelineFileArgument {
    /// JSON files, in every shell.
    static let completion = CompletionKind.file(extensions: ["json"])
}
