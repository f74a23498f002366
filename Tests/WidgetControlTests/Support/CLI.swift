import Foundation
import WidgetControl

/// What one in-process run of `widgetctl` produced.
struct CLIResult {
    let exitCode: Int32
    let standardOutput: String
    let standardError: String
}

/// The fixed time in-process runs see: 2026-12-01T09:16:38Z.
let testNow = Date(timeIntervalSince1970: 1_796_116_598.75)

/// Runs `widgetctl` in-process against `socket`, as a non-root user, at `testNow`, in
/// a time zone one hour east of UTC (as Paris in winter).
func widgetctl(
    _ arguments: [String], socket: String? = nil, input: BytesInput = BytesInput(),
    environment: [String: String] = [:], isTerminal: Bool = false
) -> CLIResult {
    let output = TextBuffer()
    let error = TextBuffer()
    var environment = environment
    if let socket { environment["WIDGETD_SOCKET"] = socket }
    let code = WidgetControl.run(
        arguments: arguments, environment: environment, stdin: input, stdout: output, stderr: error,
        isTerminal: isTerminal, userID: 1000, clock: { testNow }, utcOffset: { _ in 3600 })
    return CLIResult(exitCode: code, standardOutput: output.text, standardError: error.text)
}

/// A reply with these parameters, as the daemon sends it.
func reply(_ parameters: String = "{}", continues: Bool = false) -> String {
    continues ? "{\"parameters\":\(parameters),\"continues\":true}" : "{\"parameters\":\(parameters)}"
}

/// An error reply.
func errorReply(_ name: String, _ parameters: String = "{}") -> String {
    "{\"error\":\"\(name)\",\"parameters\":\(parameters)}"
}

/// A status reply with no wait running (`retryAfter` absent).
let statusWithoutWait = #"{"state":"locked","passcodeSet":true,"classes":[],"failedAttempts":0,"#
    + #""settings":{"lockScreenWidgetsAccess":false,"hideSensitiveComplications":"off","hiddenComplications":[]}}"#

/// What widgetd answers the role check of `unlock` (`Unlock` without a passcode) for a
/// peer that may unlock.
let unlockRoleGranted = errorReply("org.varlink.service.InvalidParameter", #"{"parameter":"passcode"}"#)

/// A fake widgetd for `unlock`: `GetStatus` answers `status`, the role check answers
/// `role`, and `Unlock` with a passcode answers `unlock`.
func unlockServer(
    status: String = reply(statusWithoutWait), role: String = unlockRoleGranted, unlock: String = reply()
) throws -> FakeVarlinkServer {
    try FakeVarlinkServer { request in
        if request.contains("io.widgetd.Device.GetStatus") { return [status] }
        if request.contains(#""passcode":"#) { return [unlock] }
        return [role]
    }
}

/// The requests `unlock` sends before it reads a passcode.
let unlockChecks = [
    #"{"method":"io.widgetd.Device.GetStatus","parameters":{}}"#,
    #"{"method":"io.widgetd.Device.Unlock","parameters":{}}"#,
]
