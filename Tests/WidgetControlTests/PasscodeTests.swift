import Foundation
import Testing
import WidgetdClient
@testable import WidgetControl

@Suite struct PasscodeTests {
    @Test func unlockReadsThePasscodeFromStandardInput() throws {
        let server = try unlockServer()
        let result = widgetctl(["unlock", "--passcode-stdin"], socket: server.path, input: BytesInput("hunter2\n"))
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "Unlocked.\n")
        #expect(result.standardError == "")
        #expect(server.requests == unlockChecks + [#"{"method":"io.widgetd.Device.Unlock","parameters":{"passcode":"hunter2"}}"#])
    }

    /// A wait after failed attempts is said at once: nobody types a passcode the daemon
    /// would not even try. Exit 75 (try again later), nothing read, echo never touched.
    @Test func unlockSaysTryAgainLaterBeforePrompting() throws {
        let status = statusWithoutWait.replacingOccurrences(of: #""failedAttempts":0"#, with: #""failedAttempts":6,"retryAfter":252"#)
        let server = try unlockServer(status: reply(status))
        let input = BytesInput("secret\n", isTerminal: true)
        let result = widgetctl(["unlock", "--json"], socket: server.path, input: input)
        #expect(result.exitCode == 75)
        #expect(result.standardError == "widgetctl: too many failed attempts: try again in 4 min 12 s\n")
        #expect(result.standardOutput == #"{"error":"io.widgetd.TryAgainLater","parameters":{"retryAfter":252}}"# + "\n")
        #expect(!input.echoWasDisabled)
        #expect(server.requests == unlockChecks)
    }

    /// A user without the unlock role during a wait is told the first thing that is
    /// true for them: permission denied (exit 77), as unlock --help says, not a delay.
    @Test func unlockWithoutTheRoleDuringAWaitIsPermissionDenied() throws {
        let status = statusWithoutWait.replacingOccurrences(of: #""failedAttempts":0"#, with: #""failedAttempts":6,"retryAfter":252"#)
        let server = try unlockServer(status: reply(status), role: errorReply("io.widgetd.PermissionDenied"))
        let result = widgetctl(["unlock"], socket: server.path, input: BytesInput("secret\n", isTerminal: true))
        #expect(result.exitCode == 77)
        #expect(!result.standardError.contains("try again"))
    }

    /// A peer without the unlock role learns it before typing: exit 77, no prompt.
    @Test func unlockWithoutTheRoleIsRefusedBeforeThePasscodeIsRead() throws {
        let server = try unlockServer(role: errorReply("io.widgetd.PermissionDenied"))
        let input = BytesInput("secret\n", isTerminal: true)
        let result = widgetctl(["unlock"], socket: server.path, input: input)
        #expect(result.exitCode == 77)
        #expect(result.standardError
            == "widgetctl: permission denied: your user may not do this (see the [Access] groups in widgetd.conf(5))\n")
        #expect(!input.echoWasDisabled)
        #expect(server.requests == unlockChecks)
    }

    @Test(arguments: ["p\"q\\r", "ünïcödé", "tab\there", "trailing-cr\r"])
    func passcodeBytesArriveIntactAsJSON(passcode: String) throws {
        let server = try unlockServer()
        let result = widgetctl(["unlock", "--passcode-stdin"], socket: server.path, input: BytesInput(passcode + "\n"))
        #expect(result.exitCode == 0)
        let parameters = try #require(server.parsedRequests.last?["parameters"] as? [String: Any])
        let expected = passcode.hasSuffix("\r") ? String(passcode.dropLast()) : passcode
        #expect(parameters["passcode"] as? String == expected)
    }

    @Test(arguments: [
        ["unlock", "1234"], ["passcode", "set", "1234"], ["passcode", "change", "old", "new"], ["passcode", "remove", "1234"],
    ])
    func positionalPasscodeIsRefused(arguments: [String]) {
        let result = widgetctl(arguments, socket: "/nonexistent/widgetd.sock")
        #expect(result.exitCode == 64)
        #expect(result.standardError.hasPrefix(
            "Error: a passcode is never taken from the command line (other users could see it in 'ps'); "
                + "type it when asked, or pipe it with --passcode-stdin\n"))
        #expect(!result.standardError.contains("1234"))
    }

    @Test func unlockAtATerminalPromptsWithoutEcho() throws {
        let server = try unlockServer()
        let input = BytesInput("secret\n", isTerminal: true)
        let result = widgetctl(["unlock"], socket: server.path, input: input)
        #expect(result.exitCode == 0)
        #expect(result.standardError == "Passcode: ")
        #expect(input.echoWasDisabled)
        #expect(!input.echoDisabled)
        #expect(!result.standardOutput.contains("secret"))
    }

    @Test(arguments: [["unlock"], ["passcode", "set"], ["passcode", "change"]])
    func noPromptWhenTheDaemonIsNotRunning(arguments: [String]) throws {
        let directory = try TemporaryDirectory.make()
        let input = BytesInput("secret\nsecret\n", isTerminal: true)
        let result = widgetctl(arguments, socket: directory + "/widgetd.sock", input: input)
        #expect(result.exitCode == 69)
        #expect(result.standardError == "widgetctl: widgetd is not running (no socket at \(directory)/widgetd.sock); start it with 'systemctl --user start widgetd.socket' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET\n")
        #expect(!input.echoWasDisabled)
    }

    @Test func unlockWithoutATerminalNeedsPasscodeStdin() throws {
        let server = try unlockServer()
        let result = widgetctl(["unlock"], socket: server.path, input: BytesInput("secret\n"))
        #expect(result.exitCode == 64)
        #expect(result.standardError == "widgetctl: no terminal to read the passcode from: pipe it with --passcode-stdin\n")
        #expect(server.requests == unlockChecks)
    }

    @Test func emptyStandardInputIsAFailure() throws {
        let server = try unlockServer()
        let result = widgetctl(["unlock", "--passcode-stdin"], socket: server.path, input: BytesInput(""))
        #expect(result.exitCode == 1)
        #expect(result.standardError == "widgetctl: no passcode given (standard input ended)\n")
        #expect(server.requests == unlockChecks)
    }

    @Test func passcodeSetAsksTwiceAtATerminal() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["passcode", "set"], socket: server.path, input: BytesInput("4711\n4711\n", isTerminal: true))
        #expect(result.exitCode == 0)
        #expect(result.standardError == "New passcode: Repeat the new passcode: ")
        #expect(server.requests == [#"{"method":"io.widgetd.Device.SetPasscode","parameters":{"new":"4711"}}"#])
    }

    @Test func mismatchedNewPasscodesChangeNothing() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["passcode", "set"], socket: server.path, input: BytesInput("4711\n4712\n", isTerminal: true))
        #expect(result.exitCode == 1)
        #expect(result.standardError.hasSuffix("widgetctl: the passcodes do not match; nothing changed\n"))
        #expect(server.requests.isEmpty)
    }

    @Test func passcodeChangeReadsCurrentThenNewFromStandardInput() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(
            ["passcode", "change", "--passcode-stdin"], socket: server.path, input: BytesInput("old\nnew\n"))
        #expect(result.exitCode == 0)
        #expect(server.requests
            == [#"{"method":"io.widgetd.Device.SetPasscode","parameters":{"current":"old","new":"new"}}"#])
    }

    @Test func passcodeRemoveSendsOnlyTheCurrentPasscode() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["passcode", "remove", "--passcode-stdin"], socket: server.path, input: BytesInput("old\n"))
        #expect(result.exitCode == 0)
        #expect(server.requests == [#"{"method":"io.widgetd.Device.SetPasscode","parameters":{"current":"old"}}"#])
    }

    @Test func wrongPasscodeSaysWhenToTryAgain() throws {
        let server = try unlockServer(unlock: errorReply("io.widgetd.WrongPasscode", #"{"failedAttempts":6,"retryAfter":300}"#))
        let result = widgetctl(["unlock", "--passcode-stdin"], socket: server.path, input: BytesInput("nope\n"))
        #expect(result.exitCode == 65)
        #expect(result.standardError == "widgetctl: wrong passcode (6 failed attempts); try again in 5 min\n")
    }
}

@Suite struct LongPasscodeTests {
    @Test func tooLongPasscodeIsRefused() throws {
        let server = try unlockServer()
        let long = String(repeating: "x", count: ZeroingBuffer.defaultCapacity + 1) + "\n"
        let result = widgetctl(["unlock", "--passcode-stdin"], socket: server.path, input: BytesInput(long))
        #expect(result.exitCode == 1)
        #expect(result.standardError == "widgetctl: passcode is longer than 4096 bytes\n")
        #expect(server.requests == unlockChecks)
    }
}
