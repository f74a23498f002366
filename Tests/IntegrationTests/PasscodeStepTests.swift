import Foundation
import Glibc
import Testing
import TestSupport

/// DESIGN §8's out-of-step record: `ReportPasscodeOutOfStep` turns
/// `GetStatus.passcodeInStep` false, durably, until a `SetPasscode` succeeds.
@Suite struct PasscodeStepTests {
    private func inStep(_ client: VarlinkTestClient) throws -> Bool? {
        try client.ok("io.widgetd.Device.GetStatus")["passcodeInStep"] as? Bool
    }

    @Test func reportedOutOfStepStaysSoAcrossRestartsUntilTheRightPasscodeChangesIt() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        var client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "login-1"])
        #expect(try inStep(client) == true)
        try client.ok("io.widgetd.Device.ReportPasscodeOutOfStep")
        #expect(try inStep(client) == false)

        daemon.kill9()
        try daemon.start()
        client = try daemon.client()
        #expect(try inStep(client) == false)
        // A wrong current passcode is refused (and counted) and leaves it out of step.
        let wrong = try client.call("io.widgetd.Device.SetPasscode", ["current": "nope", "new": "login-2"])
        #expect(wrong.error == "io.widgetd.WrongPasscode")
        #expect(try inStep(client) == false)
        try client.ok("io.widgetd.Device.SetPasscode", ["current": "login-1", "new": "login-2"])
        #expect(try inStep(client) == true)

        daemon.stop()
        try daemon.start()
        #expect(try inStep(try daemon.client()) == true)
    }

    @Test func anUnlockDoesNotBringItBackInStep() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "login-1"])
        try client.ok("io.widgetd.Device.ReportPasscodeOutOfStep")
        try client.ok("io.widgetd.Device.Lock")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "login-1"])
        #expect(try inStep(client) == false)
    }

    /// Fail closed: a record that cannot be read, or says anything but "in-step", is out
    /// of step; only its absence (a store that never was reported) reads as in step.
    @Test(arguments: ["garbage", "directory", "in-step-and-more"])
    func anUnreadableRecordReadsAsOutOfStep(kind: String) throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "login-1"])
        daemon.stop()
        let record = daemon.stateDirectory.appendingPathComponent("passcode-step")
        switch kind {
        case "directory": try FileManager.default.createDirectory(at: record, withIntermediateDirectories: false)
        case "garbage": try Data([0xFF, 0x00, 0x01]).write(to: record)
        default: try Data("in-step\nand more\n".utf8).write(to: record)
        }
        try daemon.start()
        #expect(try inStep(try daemon.client()) == false)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func onlyAnAdministratorMayReportOutOfStep() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let admin = try daemon.client()
        try admin.ok("io.widgetd.Device.SetPasscode", ["new": "login-1"])
        chmod(daemon.socketPath, 0o666)
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            s.sendall(b'{"method":"io.widgetd.Device.ReportPasscodeOutOfStep"}\\0')
            buf = b""
            while b"\\0" not in buf:
                chunk = s.recv(65536)
                if not chunk: raise SystemExit("closed")
                buf += chunk
            print(json.loads(buf.partition(b"\\0")[0]).get("error", "ok"))
            """
        let result = try ChildProcess.run("/usr/bin/setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, daemon.socketPath,
        ])
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "io.widgetd.PermissionDenied")
        #expect(try inStep(admin) == true)
    }
}
