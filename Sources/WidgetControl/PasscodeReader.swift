import WidgetdClient

/// Reads passcodes: typed at a terminal without echo, or lines of standard input.
///
/// Never from the command line, where `ps` would show them. Each passcode lands in
/// its own `ZeroingBuffer`, zeroed when the caller releases it.
struct PasscodeReader {
    /// Where passcodes come from.
    let input: any InputSource
    /// Where prompts go (standard error, so standard output stays clean).
    let prompts: any TextSink
    /// `--passcode-stdin`: read lines without prompting.
    let fromStandardInput: Bool

    /// Reads one passcode, prompting with `prompt` at a terminal.
    func read(prompt: String) throws(CommandFailure) -> ZeroingBuffer {
        if !fromStandardInput && !input.isTerminal {
            throw CommandFailure(
                "no terminal to read the passcode from: pipe it with --passcode-stdin", exitCode: .usage)
        }
        let secret = ZeroingBuffer()
        let gotLine: Bool
        if fromStandardInput {
            gotLine = try input.readLine(into: secret)
        } else {
            prompts.write(prompt)
            input.setEcho(false)
            defer { input.setEcho(true) }
            gotLine = try input.readLine(into: secret)
        }
        guard gotLine else { throw CommandFailure("no passcode given (standard input ended)") }
        guard !secret.isEmpty else { throw CommandFailure("the passcode is empty") }
        return secret
    }

    /// Reads a new passcode: at a terminal it is asked twice and must match.
    func readNew(prompt: String = "New passcode: ") throws(CommandFailure) -> ZeroingBuffer {
        let first = try read(prompt: prompt)
        if fromStandardInput { return first }
        let second = try read(prompt: "Repeat the new passcode: ")
        guard first.hasSameBytes(as: second) else { throw CommandFailure("the passcodes do not match; nothing changed") }
        return first
    }
}
