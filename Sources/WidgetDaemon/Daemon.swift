import Foundation
import Glibc
import WidgetCrypto

/// The `widgetd` program: its command line, and the exit codes it promises.
///
/// `main` only reads arguments and reports; the running daemon is ``DaemonRuntime``.
public enum Daemon {
    /// The version `--version` prints and `GetInfo` reports.
    public static let version = "0.1.0"

    /// Runs widgetd and returns its exit code: 0 after a clean stop, 64 for a usage
    /// error, 1 for any failure (logged with its reason).
    public static func main(
        arguments: [String] = CommandLine.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        let commandLine: DaemonCommandLine
        do {
            commandLine = try DaemonCommandLine.parse(Array(arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("widgetd: \(error)\nTry 'widgetd --help'.\n".utf8))
            return DaemonCommandLine.usageExitCode
        }
        switch commandLine.action {
        case .help:
            print(DaemonCommandLine.helpText)
            return 0
        case .version:
            print("widgetd \(version)")
            return 0
        case .run:
            break
        }

        let logger = Logger.standard(environment: environment)
        do {
            // First, before any thread: freed memory must be overwritten, and glibc's
            // thread cache would keep small freed chunks (replies, decoded strings) intact.
            try ProcessHygiene.reexecWithoutMallocThreadCache(arguments: arguments, environment: environment)
            // Before any thread starts, so that every thread inherits the mask and the
            // signals arrive on the loop's signalfd only.
            try Signals.blockDaemonSignals()
            try ProcessHygiene.apply()
            let paths = commandLine.paths(defaults: try DaemonPaths.defaults(uid: getuid(), environment: environment))
            let runtime = try DaemonRuntime(paths: paths, environment: environment, logger: logger)
            try runtime.run()
            return 0
        } catch {
            logger.critical("widgetd cannot run: \(error)", event: "start_failed")
            Systemd.notify(Systemd.Notification.status("failed: \(error)"))
            return 1
        }
    }
}
