/// The process exit codes `widgetctl` promises to scripts (sysexits.h values).
///
/// Stable: a lock screen or a script tells the failures apart by these alone
/// (widgetctl(1)).
package enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// The daemon refused or the command failed for a reason it explains.
    case failure = 1
    /// The command line was wrong (`EX_USAGE`).
    case usage = 64
    /// The passcode was wrong (`EX_DATAERR`): `io.widgetd.WrongPasscode`.
    case wrongPasscode = 65
    /// The device is locked, so the protected data cannot be read or written
    /// (`EX_NOINPUT`): `io.widgetd.ProtectedDataUnavailable`.
    case protectedDataUnavailable = 66
    /// The daemon could not be reached (`EX_UNAVAILABLE`).
    case unavailable = 69
    /// Too many failed attempts: nothing is tried until the wait is over
    /// (`EX_TEMPFAIL`): `io.widgetd.TryAgainLater`, or `retryAfter` seen before prompting.
    case tryAgainLater = 75
    /// The daemon or the socket refused this user (`EX_NOPERM`).
    case permissionDenied = 77
}
