import Glibc
import Testing
import WidgetdClient
@testable import WidgetControl

/// widgetctl's socket failures are the client library's, and the line a person reads
/// is still the system's text for the errno, or the fix for it.
@Suite struct SocketErrorTests {
    @Test func aLostConnectionIsNamedByTheSystemsText() {
        let failure = DaemonErrorMessage.failure(for: .io(errorNumber: ETIMEDOUT))
        #expect(failure.message == "lost the connection to widgetd: Connection timed out")
    }

    @Test func aMissingSocketSaysTheDaemonIsNotRunning() {
        let failure = DaemonErrorMessage.failure(for: .daemonUnavailable(socket: "/run/widgetd.sock", errorNumber: ENOENT))
        #expect(failure.message == "widgetd is not running (no socket at /run/widgetd.sock); start it with 'systemctl --user start widgetd.socket' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET")
    }

    @Test func anyOtherReasonIsNamedByTheSystemsText() {
        let failure = DaemonErrorMessage.failure(for: .daemonUnavailable(socket: "/s", errorNumber: EAGAIN))
        #expect(failure.message == "cannot reach widgetd at /s: Resource temporarily unavailable")
    }

    @Test(arguments: [EACCES, EPERM])
    func aSocketThisUserMayNotUseSaysWhoToAsk(errorNumber: Int32) {
        let failure = DaemonErrorMessage.failure(for: .daemonUnavailable(socket: "/s", errorNumber: errorNumber))
        #expect(failure.message == "permission denied: cannot connect to /s (ask an administrator to add you to a widgetd group)")
        #expect(failure.exitCode == .permissionDenied)
        #expect(failure.name == CommandFailure.Name.socketAccessDenied)
    }

    /// A per-user instance's socket is in a 0700 directory: no group can help, its
    /// owner can, so the hint names the owner instead of a group.
    @Test func aSocketInAPrivateDirectoryNamesItsOwner() throws {
        let directory = try TemporaryDirectory.make()
        #expect(chmod(directory, 0o700) == 0)
        let failure = DaemonErrorMessage.failure(for: .daemonUnavailable(socket: directory + "/widgetd.sock", errorNumber: EACCES))
        let owner = AccountName.user(getuid())
        #expect(failure.message == "permission denied: cannot connect to \(directory)/widgetd.sock (its directory \(directory) "
            + "is private to \(owner) (mode 0700): run widgetctl as \(owner), or reach a widgetd whose socket you may use)")
        #expect(failure.exitCode == .permissionDenied)
    }

    @Test func aClosedConnectionAndAnUnusablePathKeepTheirLines() {
        #expect(DaemonErrorMessage.failure(for: .connectionLost).message == "widgetd closed the connection without answering")
        let invalid = DaemonErrorMessage.failure(for: .invalidSocketPath("/x"))
        #expect(invalid.message == "not a usable socket path: /x")
        #expect(invalid.exitCode == .usage)
    }
}
