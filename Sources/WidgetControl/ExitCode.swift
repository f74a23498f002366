/// The process exit codes `widgetctl` promises to scripts (sysexits.h values).
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// The daemon refused or the command failed for a reason it explains.
    case failure = 1
    /// The command line was wrong (`EX_USAGE`).
    case usage = 64
    /// The daemon could not be reached (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// The daemon or the socket refused this user (`EX_NOPERM`).
    case permissionDenied = 77
}
