import WidgetModel

/// A command that ran but could not do what was asked.
///
/// The message is one line a person can act on; it is printed after `widgetctl: `
/// on standard error. With `--json`, the error's name and parameters are printed on
/// standard output too, so that a script need not parse the message. Neither ever
/// carries a passcode or decrypted content.
struct CommandFailure: Error, Equatable {
    /// The names of the errors widgetctl finds itself (the daemon's are Varlink names).
    enum Name {
        /// Nothing answers at the socket, or the connection broke.
        static let daemonUnavailable = "widgetctl.DaemonUnavailable"
        /// The socket exists but this user may not connect to it.
        static let socketAccessDenied = "widgetctl.SocketAccessDenied"
        /// The daemon's reply was not what widgetctl understands.
        static let malformedReply = "widgetctl.MalformedReply"
        /// The command line cannot be run as written.
        static let usage = "widgetctl.UsageError"
        /// Anything else widgetctl itself could not do (a file, standard input, …).
        static let failure = "widgetctl.Failure"
    }

    /// What went wrong and, where possible, what to do about it.
    let message: String
    /// The exit code that tells a script what kind of failure this was.
    let exitCode: ExitCode
    /// The Varlink error's name, or one of ``Name``'s.
    let name: String
    /// The Varlink error's parameters; for widgetctl's own errors, `message`.
    let parameters: [String: JSONValue]

    /// A failure widgetctl raises itself: its name is `widgetctl.Failure` (`widgetctl.UsageError`
    /// for exit code 64) unless given, and its parameters hold the message.
    init(_ message: String, exitCode: ExitCode = .failure, name: String? = nil, parameters: [String: JSONValue]? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.name = name ?? (exitCode == .usage ? Name.usage : Name.failure)
        self.parameters = parameters ?? ["message": .string(message)]
    }

    /// The same failure, reported as the daemon's error `name` with its `parameters`.
    func reported(as name: String, _ parameters: [String: JSONValue]) -> CommandFailure {
        CommandFailure(message, exitCode: exitCode, name: name, parameters: parameters)
    }

    /// The same failure with `text` added to its message (and to its `message`
    /// parameter, for widgetctl's own errors).
    func adding(_ text: String) -> CommandFailure {
        var parameters = self.parameters
        if case .string? = parameters["message"] { parameters["message"] = .string(message + text) }
        return CommandFailure(message + text, exitCode: exitCode, name: name, parameters: parameters)
    }

    /// What `--json` prints on standard output: `{"error":NAME,"parameters":{…}}`.
    var json: JSONValue { .object(["error": .string(name), "parameters": .object(parameters)]) }
}
