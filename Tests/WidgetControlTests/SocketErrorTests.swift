import Glibc
import Testing
import WidgetdPOSIX
@testable import WidgetControl

/// widgetctl's socket failures carry the one `Errno` of the POSIX layer, and the line a
/// person reads is still the system's text for it.
@Suite struct SocketErrorTests {
    @Test func aLostConnectionIsNamedByTheSystemsText() {
        let failure = DaemonErrorMessage.failure(for: .io(errorNumber: Errno(rawValue: ETIMEDOUT)))
        #expect(failure.message == "lost the connection to widgetd: Connection timed out")
    }

    @Test func aMissingSocketSaysTheDaemonIsNotRunning() {
        let failure = DaemonErrorMessage.failure(for: .unreachable(path: "/run/widgetd.sock", errorNumber: .noSuchFileOrDirectory))
        #expect(failure.message == "widgetd is not running (no socket at /run/widgetd.sock); start it with 'systemctl --user start widgetd.socket' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET")
    }

    @Test func anyOtherReasonIsNamedByTheSystemsText() {
        let failure = DaemonErrorMessage.failure(for: .unreachable(path: "/s", errorNumber: Errno(rawValue: EAGAIN)))
        #expect(failure.message == "cannot reach widgetd at /s: Resource temporarily unavailable")
    }
}
