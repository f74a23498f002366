import CSystemShims
import CSystemd
import FoundationEssentials
import Glibc

/// The daemon's side of systemd's service protocol: socket activation, readiness and
/// status notifications, and the watchdog.
///
/// Outside systemd every call is harmless: no sockets are passed, notifications go
/// nowhere, and there is no watchdog.
package enum Systemd {
    /// The listening sockets systemd passed (`LISTEN_FDS`), starting at fd 3.
    ///
    /// The `LISTEN_*` variables are removed from the environment so that children do
    /// not believe the sockets are theirs. The corresponding C function is `sd_listen_fds`.
    package static func listenFileDescriptors() throws(SystemError) -> [FileDescriptor] {
        let count = sd_listen_fds(1)
        guard count >= 0 else { throw SystemError("sd_listen_fds", code: -count) }
        return (0..<count).map { FileDescriptor(rawValue: SD_LISTEN_FDS_START + $0) }
    }

    /// Sends a notification such as `READY=1`, `STATUS=…`, `RELOADING=1`, `STOPPING=1`
    /// or `WATCHDOG=1`; several may be joined with newlines.
    ///
    /// Returns whether systemd is listening (`NOTIFY_SOCKET` set). A failure to notify
    /// is not fatal to the daemon, so it is reported, not thrown.
    /// The corresponding C function is `sd_notify`.
    @discardableResult
    package static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The notifications of the daemon's life, spelled once.
    package enum Notification {
        /// Start-up finished: the socket is served.
        package static let ready = "READY=1"
        /// Shutting down.
        package static let stopping = "STOPPING=1"
        /// Reloading the configuration (SIGHUP).
        package static let reloading = "RELOADING=1"
        /// Alive; must be sent more often than the watchdog interval.
        package static let watchdog = "WATCHDOG=1"

        /// A one-line status shown by `systemctl status`.
        package static func status(_ text: String) -> String { "STATUS=\(text)" }
    }

    /// How often systemd expects `WATCHDOG=1`, in seconds, or `nil` when no watchdog
    /// is enabled for this process. Send it at about half this interval.
    /// The corresponding C function is `sd_watchdog_enabled`.
    package static func watchdogInterval() -> Double? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return Double(microseconds) / 1_000_000
    }
}

extension Systemd {
    /// Sends `WATCHDOG=1` at half the watchdog interval for as long as `loop` runs.
    ///
    /// The pings come from the loop itself, so a loop that hangs stops them and
    /// systemd restarts the daemon, which is the point. Returns the interval in
    /// seconds, or `nil` (and schedules nothing) when no watchdog is enabled.
    @discardableResult
    package static func startWatchdogPings(on loop: EventLoop) -> Double? {
        guard let interval = watchdogInterval() else { return nil }
        func ping() {
            notify(Notification.watchdog)
            loop.schedule(after: interval / 2) { ping() }
        }
        ping()
        return interval
    }

    /// Whether a passed descriptor is a listening Unix stream socket, the only kind
    /// widgetd serves. The corresponding C function is `sd_is_socket_unix`.
    package static func isListeningUnixSocket(_ fd: FileDescriptor) -> Bool {
        sd_is_socket_unix(fd.rawValue, shim_SOCK_STREAM, 1, nil, 0) > 0
    }
}
