import WidgetControl

/// What one in-process run of `widgetctl` produced.
struct CLIResult {
    let exitCode: Int32
    let standardOutput: String
    let standardError: String
}

/// Runs `widgetctl` in-process against `socket`, as a non-root user.
func widgetctl(
    _ arguments: [String], socket: String? = nil, input: BytesInput = BytesInput(),
    environment: [String: String] = [:], isTerminal: Bool = false
) -> CLIResult {
    let output = TextBuffer()
    let error = TextBuffer()
    var environment = environment
    if let socket { environment["WIDGETD_SOCKET"] = socket }
    let code = WidgetControl.run(
        arguments: arguments, environment: environment, stdin: input, stdout: output, stderr: error,
        isTerminal: isTerminal, userID: 1000)
    return CLIResult(exitCode: code, standardOutput: output.text, standardError: error.text)
}

/// A reply with these parameters, as the daemon sends it.
func reply(_ parameters: String = "{}", continues: Bool = false) -> String {
    continues ? "{\"parameters\":\(parameters),\"continues\":true}" : "{\"parameters\":\(parameters)}"
}

/// An error reply.
func errorReply(_ name: String, _ parameters: String = "{}") -> String {
    "{\"error\":\"\(name)\",\"parameters\":\(parameters)}"
}
