import Foundation
import Testing
@testable import WidgetControl

@Suite struct DaemonErrorTests {
    /// Each daemon error, the one line on standard error, and the exit code.
    static let cases: [(String, String, String, Int32)] = [
        ("io.widgetd.ProtectedDataUnavailable", "{}",
         "widgetctl: protected data unavailable: unlock first (widgetctl unlock)\n", 66),
        ("io.widgetd.PermissionDenied", "{}",
         "widgetctl: permission denied: your user may not do this (see the [Access] groups in widgetd.conf(5))\n", 77),
        ("io.widgetd.TryAgainLater", "{\"retryAfter\":252}",
         "widgetctl: too many failed attempts: try again in 4 min 12 s\n", 75),
        ("io.widgetd.WrongPasscode", "{\"failedAttempts\":5,\"retryAfter\":60}",
         "widgetctl: wrong passcode (5 failed attempts); try again in 1 min\n", 65),
        ("io.widgetd.WrongPasscode", "{\"failedAttempts\":1}",
         "widgetctl: wrong passcode (1 failed attempt)\n", 65),
        ("io.widgetd.WidgetNotFound", "{\"widget\":\"a/b\"}",
         "widgetctl: no widget a/b (widgetctl list shows the stored widgets)\n", 1),
        ("io.widgetd.ProviderNotRegistered", "{\"provider\":\"com.x\"}",
         "widgetctl: provider com.x is not registered: if providers.d/ has a file for it, that file is disabled by an error (run 'widgetd --check-config', see widgetd's log and widgetctl providers); otherwise add one (widgetd.conf(5))\n", 1),
        ("io.widgetd.UnavailableOnSurface", "{\"surface\":\"remote\"}",
         "widgetctl: this widget is not shown on the remote surface: its data protection class forbids it\n", 1),
        ("io.widgetd.InvalidTimeline", "{\"reason\":\"entry 2 has no date\"}",
         "widgetctl: invalid timeline: entry 2 has no date\n", 1),
        ("io.widgetd.TooLarge", "{\"limit\":1048576}",
         "widgetctl: timeline too large: widgetd accepts at most 1048576 bytes\n", 1),
        ("io.widgetd.UnlockInterrupted", "{}",
         "widgetctl: the passcode was right, but a lock arrived while it was being checked: still locked, not counted as a failed attempt; unlock again (widgetctl unlock)\n", 1),
        ("io.widgetd.PasscodeRequired", "{}",
         "widgetctl: a passcode is set: give the current one (widgetctl passcode change or passcode remove)\n", 1),
        ("io.widgetd.Wiped", "{}",
         "widgetctl: the device was wiped: every timeline is gone (restart widgetd to start afresh)\n", 1),
        ("org.varlink.service.MethodNotFound", "{\"method\":\"x\"}",
         "widgetctl: widgetd does not know this call (is widgetd older than widgetctl?)\n", 1),
        ("io.widgetd.StorageFailure", "{\"reason\":\"disk full\"}",
         "widgetctl: widgetd cannot use its state directory: disk full (see its log: journalctl -u widgetd)\n", 1),
        ("org.varlink.service.PermissionDenied", "{}",
         "widgetctl: permission denied: your user may not do this (see the [Access] groups in widgetd.conf(5))\n", 77),
        ("org.example.Unknown", "{}", "widgetctl: widgetd failed: org.example.Unknown\n", 1),
    ]

    @Test(arguments: cases)
    func daemonErrorsBecomeOneLineAndAnExitCode(name: String, parameters: String, message: String, code: Int32) throws {
        let server = try FakeVarlinkServer(replies: [errorReply(name, parameters)])
        let result = widgetctl(["timeline", "a/b"], socket: server.path)
        #expect(result.standardError == message)
        #expect(result.exitCode == code)
        #expect(result.standardOutput == "")
    }

    @Test func missingDaemonExits69() throws {
        let directory = try TemporaryDirectory.make()
        let result = widgetctl(["status"], socket: directory + "/widgetd.sock")
        #expect(result.exitCode == 69)
        #expect(result.standardError == "widgetctl: widgetd is not running (no socket at \(directory)/widgetd.sock); start it with 'systemctl --user start widgetd.socket' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET\n")
    }

    @Test func socketOptionWinsOverEnvironment() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["--socket", server.path, "lock"], socket: "/nonexistent/widgetd.sock")
        #expect(result.exitCode == 0)
        #expect(server.requests.count == 1)
    }

    @Test func daemonHangingUpExits69() throws {
        let server = try FakeVarlinkServer(replies: [])
        let result = widgetctl(["lock"], socket: server.path)
        #expect(result.exitCode == 69)
        #expect(result.standardError == "widgetctl: widgetd closed the connection without answering\n")
    }

    @Test func unreadableReplyIsAFailure() throws {
        let server = try FakeVarlinkServer(replies: ["not json"])
        let result = widgetctl(["lock"], socket: server.path)
        #expect(result.exitCode == 1)
        #expect(result.standardError.hasPrefix("widgetctl: widgetd sent a reply widgetctl does not understand"))
    }

    /// With --json, each daemon error is also `{"error": NAME, "parameters": {...}}` on
    /// standard output, the message still on standard error, the exit code the same.
    @Test(arguments: cases)
    func jsonErrorsAreTheVarlinkErrorOnStandardOutput(name: String, parameters: String, message: String, code: Int32) throws {
        let server = try FakeVarlinkServer(replies: [errorReply(name, parameters)])
        let result = widgetctl(["--json", "timeline", "a/b"], socket: server.path)
        #expect(result.exitCode == code)
        #expect(result.standardError == message)
        let expected = try JSONSerialization.jsonObject(with: Data(#"{"error":"\#(name)","parameters":\#(parameters)}"#.utf8))
        let printed = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        #expect((printed as? NSDictionary) == (expected as? NSDictionary))
        #expect(result.standardOutput.filter { $0 == "\n" }.count == 1)
    }

    /// Errors widgetctl finds itself have names of their own, in the same shape.
    @Test func jsonErrorForAMissingDaemonNamesTheSocket() throws {
        let directory = try TemporaryDirectory.make()
        let result = widgetctl(["status", "--json"], socket: directory + "/widgetd.sock")
        #expect(result.exitCode == 69)
        #expect(result.standardOutput
            == #"{"error":"widgetctl.DaemonUnavailable","parameters":{"socket":"\#(directory)/widgetd.sock"}}"# + "\n")
    }

    /// Without --json, standard output stays empty on a failure, as scripts parsing it expect.
    @Test func withoutJSONAFailurePrintsNothingOnStandardOutput() throws {
        let server = try FakeVarlinkServer(replies: [errorReply("io.widgetd.WrongPasscode", #"{"failedAttempts":1}"#)])
        let result = widgetctl(["lock"], socket: server.path)
        #expect(result.exitCode == 65)
        #expect(result.standardOutput == "")
    }
}
