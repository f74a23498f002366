import Glibc

/// The `widgetctl` client: every command, runnable in-process.
public enum WidgetControl {
    /// Runs one command line and returns its exit code (see `ExitCode`).
    ///
    /// - Parameters:
    ///   - arguments: the words after the program name.
    ///   - environment: `WIDGETD_SOCKET`, `XDG_RUNTIME_DIR`, `NO_COLOR`, `TERM` are read.
    ///   - stdin: passcodes (`--passcode-stdin` or typed at a terminal) and timelines given as `-`.
    ///   - stdout: results.
    ///   - stderr: errors, usage and prompts.
    ///   - isTerminal: whether standard output is a terminal (colour, and redrawn previews).
    ///   - userID: whose default socket to use; root's is the system one.
    public static func run(
        arguments: [String], environment: [String: String], stdin: some InputSource,
        stdout: some TextSink, stderr: some TextSink, isTerminal: Bool, userID: UInt32 = getuid()
    ) -> Int32 {
        Widgetctl.main(
            arguments: arguments, environment: environment, standardInput: stdin,
            standardOutput: stdout, standardError: stderr, isTerminal: isTerminal, userID: userID)
    }

    /// Runs the process's own command line on its own standard streams.
    public static func main() -> Int32 {
        run(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfoEnvironment.current,
            stdin: FileDescriptorInput(fileDescriptor: STDIN_FILENO), stdout: FileDescriptorSink.standardOutput,
            stderr: FileDescriptorSink.standardError, isTerminal: isatty(STDOUT_FILENO) == 1)
    }
}
