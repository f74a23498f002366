/// A command that ran but could not do what was asked.
///
/// The message is one line a person can act on; it is printed after `widgetctl: `
/// on standard error. It never carries a passcode or decrypted content.
struct CommandFailure: Error, Equatable {
    /// What went wrong and, where possible, what to do about it.
    let message: String
    /// The exit code that tells a script what kind of failure this was.
    let exitCode: ExitCode

    init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }
}
