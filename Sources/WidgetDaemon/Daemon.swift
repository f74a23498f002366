import FoundationEssentials
import Glibc
import Logging
import WidgetdPOSIX

/// The `widgetd` program once its command line is parsed, and the exit codes it promises.
///
/// `main` only starts and reports; the running daemon is ``DaemonRuntime``.
package enum Daemon {
    /// The version `--version` prints and `GetInfo` reports.
    package static let version = "0.1.0"

    /// Runs what `commandLine` asks for and returns the exit code: 0 after a clean stop,
    /// 1 for any failure (logged with its reason). The command line's parser (help,
    /// `--version`, usage errors with 64) is `WidgetdCommand`'s.
    package static func main(
        _ commandLine: DaemonCommandLine, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        if commandLine.action == .checkConfiguration {
            return checkConfiguration(commandLine, environment: environment)
        }

        // Before anything else: the restart keeps the pid (systemd's notify and socket
        // activation are unaffected) and inherits the environment and descriptors.
        let restartFailure = ProcessHygiene.restartWithoutMallocCache()
        // tpm2-tss writes its own errors to standard error, the journal: each wrong
        // passcode in tpm2 mode is an authorisation failure it reports as ERROR lines,
        // which say less than widgetd's unlock_failed and alarm an administrator. Quiet
        // unless TSS2_LOG asks otherwise; set while no thread runs yet.
        if environment["TSS2_LOG"] == nil { setenv("TSS2_LOG", "all+NONE", 0) }
        let logger = Logger.standard(environment: environment)
        if let restartFailure {
            logger.warning(
                "cannot restart with glibc's malloc cache off (\(String(cString: strerror(restartFailure)))); small freed buffers may keep content until reused",
                event: "hygiene_degraded")
        }
        do {
            // Before any thread starts, so that every thread inherits the mask and the
            // signals arrive on the loop's signalfd only.
            try Signals.blockDaemonSignals()
            try ProcessHygiene.apply()
            // A socket of its own is needed unless one is given or passed by systemd.
            let needsSocket = commandLine.socketPath == nil && environment["LISTEN_FDS"] == nil
            let paths = commandLine.paths(
                defaults: try DaemonPaths.defaults(uid: getuid(), environment: environment, needsRuntimeDirectory: needsSocket))
            if getuid() != 0, commandLine.stateDirectory == nil {
                // The state directory's own level is made by the store (0700); above it
                // are the user's XDG directories, which a fresh account may not have.
                try XDGBaseDirectory.create(PathComponents.parent(of: paths.stateDirectory))
            }
            let runtime = try DaemonRuntime(
                paths: paths, environment: environment, startOver: commandLine.startOver, logger: logger)
            try runtime.run()
            return 0
        } catch {
            logger.critical("widgetd cannot run", event: "start_failed", error: error)
            Systemd.notify(Systemd.Notification.status("failed: \(error)"))
            return 1
        }
    }

    /// `--check-config`: every problem on standard error, a summary on standard output;
    /// 1 when any is an error.
    private static func checkConfiguration(_ commandLine: DaemonCommandLine, environment: [String: String]) -> Int32 {
        let file: String
        do {
            file = commandLine.paths(defaults: try DaemonPaths.defaults(uid: getuid(), environment: environment))
                .configurationFile
        } catch {
            writeToStandardError("widgetd: \(error)\n")
            return 1
        }
        let problems = ConfigurationLoader.check(mainFile: file)
        for problem in problems { writeToStandardError("\(problem)\n") }
        let errors = problems.filter { $0.severity == .error }.count
        let warnings = problems.count - errors
        print("\(file): \(errors) error(s), \(warnings) warning(s)")
        return errors == 0 ? 0 : 1
    }

    /// Writes `text` to standard error, unbuffered (Foundation's `FileHandle` is not in
    /// FoundationEssentials, and Glibc's `stderr` is a global Swift 6 will not share).
    private static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }
}
