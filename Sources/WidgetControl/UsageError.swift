/// A command line that cannot be run as written: exit 64, a usage hint on stderr.
struct UsageError: Error, Equatable {
    /// What is wrong with the command line.
    let message: String

    init(_ message: String) { self.message = message }
}
