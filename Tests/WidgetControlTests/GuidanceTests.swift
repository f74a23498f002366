import Foundation
import Glibc
import Testing
import WidgetModel
import WidgetdWire
@testable import WidgetControl

/// A CLI that says what to do next: each failure names its fix, and the commands a
/// new user reaches for (`providers`, `introspect`, `call`) exist.
@Suite struct GuidanceTests {
    static let placeholderPresentation = #"{"presentation":{"widget":"com.example.weather/gone","surface":"homeScreen","#
        + #""mode":"placeholder","reasons":["placeholder"],"luminanceReduced":false,"stale":false,"#
        + #""entry":{"fields":{"title":{"value":"Weather","privacy":"public","redacted":false}}}}}"#
    static let weatherProvider = #"{"id":"com.example.weather","class":"completeUntilFirstUserAuthentication","#
        + #""user":0,"file":"/etc/widgetd/providers.d/weather.conf","maxWidgets":1000,"maxBytes":67108864}"#
    static let status = #"{"state":"unlocked","passcodeSet":true,"classes":[],"failedAttempts":0,"#
        + #""settings":{"lockScreenWidgetsAccess":true,"hideSensitiveComplications":"off","hiddenComplications":[]}}"#

    /// A server answering each method by its name.
    static func server(_ answers: [String: String]) throws -> FakeVarlinkServer {
        try FakeVarlinkServer { request in
            for (method, answer) in answers where request.contains("\"\(method)\"") { return [answer] }
            return [errorReply("org.varlink.service.MethodNotFound", #"{"method":"?"}"#)]
        }
    }

    // MARK: Item: providers

    @Test func providersListsClassOwnerFileAndWhyAFileIsDisabled() throws {
        let server = try Self.server([
            "io.widgetd.Provider.ListProviders": reply(
                #"{"providers":["# + Self.weatherProvider + #"],"disabled":[{"file":"/etc/widgetd/providers.d/bad.conf","line":3,"reason":"missing DataProtection="}]}"#),
        ])
        let result = widgetctl(["providers"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            PROVIDER             CLASS                                 USER  GROUP  APP  FILE
            com.example.weather  completeUntilFirstUserAuthentication  root  -      -    /etc/widgetd/providers.d/weather.conf

            Disabled (these files register no provider):
              /etc/widgetd/providers.d/bad.conf:3: missing DataProtection=
            Fix them, check with 'widgetd --check-config', then reload widgetd (systemctl reload widgetd, or SIGHUP).

            """)
    }

    @Test func providersWithJSONPrintsTheReplyAsSent() throws {
        let server = try Self.server(["io.widgetd.Provider.ListProviders": reply(#"{"providers":[]}"#)])
        let result = widgetctl(["providers", "--json"], socket: server.path)
        #expect(result.standardOutput == "{\"providers\":[]}\n")
        #expect(widgetctl(["providers"], socket: server.path).standardOutput == "No provider registered.\n")
    }

    // MARK: Item: errors that name the fix

    @Test func aMissingDaemonSaysHowToStartItAndHowToNameItsSocket() throws {
        let directory = try TemporaryDirectory.make()
        let result = widgetctl(["status"], socket: directory + "/widgetd.sock")
        #expect(result.exitCode == 69)
        #expect(result.standardError == "widgetctl: widgetd is not running (no socket at \(directory)/widgetd.sock); "
            + "start it with 'systemctl --user start widgetd.socket' (or run 'widgetd'), or give its socket with --socket PATH or WIDGETD_SOCKET\n")
    }

    /// Under su, ssh without logind or a container, the runtime directory is a guess:
    /// the message says so, and what to set.
    @Test func withoutXDGRuntimeDirTheMessageSaysWhereItLooked() {
        let output = TextBuffer(), error = TextBuffer()
        let code = WidgetControl.run(
            arguments: ["status"], environment: [:], stdin: BytesInput(), stdout: output, stderr: error,
            isTerminal: false, userID: 4_000_000_001)
        #expect(code == 69)
        #expect(error.text.hasSuffix("; XDG_RUNTIME_DIR is not set (su, ssh without logind, a container), "
            + "so widgetctl looked in /run/user/4000000001: set it, or give --socket\n"), "\(error.text)")
    }

    @Test func aPathThatIsNoSocketSaysSo() throws {
        let directory = try TemporaryDirectory.make()
        let path = directory + "/not-a-socket"
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let result = widgetctl(["status"], socket: path)
        #expect(result.exitCode == 69)
        #expect(result.standardError == "widgetctl: \(path) is not a socket: give widgetd's socket with --socket PATH or WIDGETD_SOCKET\n")
    }

    @Test func permissionDeniedNamesTheProviderItsOwnerAndProvidersD() throws {
        let server = try Self.server([
            "io.widgetd.Provider.DeleteTimeline": errorReply(
                "io.widgetd.PermissionDenied", #"{"provider":"com.example.weather","user":0}"#),
        ])
        let result = widgetctl(["delete", "com.example.weather/today", "--json"], socket: server.path)
        #expect(result.exitCode == 77)
        #expect(result.standardError == "widgetctl: permission denied: only user root (User=/Group= of provider "
            + "com.example.weather in providers.d/) or an administrator may write its widgets; "
            + "in this per-user instance its owner may write every provider\n")
        #expect(result.standardOutput
            == #"{"error":"io.widgetd.PermissionDenied","parameters":{"provider":"com.example.weather","user":0}}"# + "\n")
    }

    @Test func theSystemInstanceDoesNotSpeakOfAnOwner() {
        let text = DaemonErrorMessage.permissionDenied(
            ["provider": .string("com.x"), "group": .number(JSONNumber(0))], socketPath: SocketLocation.systemPath)
        #expect(text == "permission denied: only group root (User=/Group= of provider com.x in providers.d/) or an administrator may write its widgets")
    }

    /// A provider whose file is disabled has no writer: its own user is refused, and
    /// told to check the file rather than to ask for a User= it already has.
    @Test func aProviderWithoutWritersIsNamedAsNotRegistered() {
        let text = DaemonErrorMessage.permissionDenied(["provider": .string("com.x")], socketPath: SocketLocation.systemPath)
        #expect(text == "permission denied: provider com.x is not registered, so only an administrator may write its widgets; "
            + "if providers.d/ has a file for it, check it with 'widgetd --check-config' and see widgetd's log")
    }

    @Test func aProviderDisabledByABadFileIsNamedWithTheFileAndReason() throws {
        let server = try Self.server([
            "io.widgetd.Provider.DeleteTimeline": errorReply("io.widgetd.ProviderNotRegistered", #"{"provider":"com.x"}"#),
            "io.widgetd.Provider.ListProviders": reply(
                #"{"providers":[],"disabled":[{"file":"/etc/widgetd/providers.d/x.conf","line":4,"reason":"invalid value 'sometimes' for DataProtection="}]}"#),
        ])
        let result = widgetctl(["delete", "com.x/y"], socket: server.path)
        #expect(result.exitCode == 1)
        #expect(result.standardError == "widgetctl: provider com.x is not registered; these providers.d/ files register nothing: "
            + "/etc/widgetd/providers.d/x.conf:4: invalid value 'sometimes' for DataProtection= "
            + "(fix them, check with 'widgetd --check-config', then reload widgetd)\n")
    }

    @Test func aProviderWithNoFileIsToldToAddOne() throws {
        let server = try Self.server([
            "io.widgetd.Provider.DeleteTimeline": errorReply("io.widgetd.ProviderNotRegistered", #"{"provider":"com.x"}"#),
            "io.widgetd.Provider.ListProviders": reply(#"{"providers":[]}"#),
        ])
        let result = widgetctl(["delete", "com.x/y", "--json"], socket: server.path)
        #expect(result.standardError
            == "widgetctl: provider com.x is not registered: add a file for it to providers.d/ (widgetd.conf(5)) and reload widgetd\n")
        #expect(result.standardOutput == #"{"error":"io.widgetd.ProviderNotRegistered","parameters":{"provider":"com.x"}}"# + "\n")
    }

    @Test func anUnregisteredProviderPointsAtCheckConfigBeforeProvidersD() throws {
        let server = try Self.server([
            "io.widgetd.Provider.DeleteTimeline": errorReply("io.widgetd.ProviderNotRegistered", #"{"provider":"com.x"}"#),
        ])
        let result = widgetctl(["delete", "com.x/y"], socket: server.path)
        #expect(result.standardError == "widgetctl: provider com.x is not registered: if providers.d/ has a file for it, "
            + "that file is disabled by an error (run 'widgetd --check-config', see widgetd's log and widgetctl providers); "
            + "otherwise add one (widgetd.conf(5))\n")
    }

    @Test(arguments: [
        ("stauts", "Error: unknown command 'stauts'; did you mean 'status'?"),
        ("unlcok", "Error: unknown command 'unlcok'; did you mean 'unlock'?"),
        ("provider", "Error: unknown command 'provider'; did you mean 'providers'?"),
        ("intro", "Error: unknown command 'intro'; did you mean 'introspect'?"),
        ("frobnicate", "Error: unknown command 'frobnicate'"),
    ])
    func aMistypedCommandGetsDidYouMean(word: String, firstLine: String) {
        let result = widgetctl(["--json", word])
        #expect(result.exitCode == 64)
        #expect(result.standardError.split(separator: "\n").first.map(String.init) == firstLine)
        #expect(result.standardError.contains("Usage: widgetctl"))
    }

    @Test func aTimelineSyntaxErrorIsGivenByLineAndColumn() throws {
        let text = "{\n  \"entries\": [\n    {\"date\": \"2026-11-29T13:00:00Z\",, \"fields\": {}}\n  ]\n}\n"
        let result = widgetctl(["put", "a/b", "-"], input: BytesInput(text))
        #expect(result.exitCode == 1)
        #expect(result.standardError.hasPrefix("widgetctl: standard input:3:37: not JSON: expected a key"), "\(result.standardError)")
        #expect(!result.standardError.contains("byte"))
    }

    @Test func aPolicyGivenAsAWordNamesTheObjectExpected() throws {
        let text = "{\n  \"entries\": [],\n  \"policy\": \"atEnd\"\n}\n"
        let result = widgetctl(["put", "a/b", "-"], input: BytesInput(text))
        #expect(result.standardError == #"widgetctl: standard input: "policy" has the wrong type; a policy is an object: "#
            + #"{"kind": "atEnd"}, {"kind": "never"} or {"kind": "after", "date": "2026-12-01T10:00:00Z"}"# + "\n")
    }

    @Test func aFieldGivenAsABareValueIsPlacedAndNamesValue() throws {
        let text = "{\"entries\": [\n  {\"date\": \"2026-11-29T13:00:00Z\",\n   \"fields\": {\"temperature\": 21}}\n]}\n"
        let result = widgetctl(["put", "a/b", "-"], input: BytesInput(text))
        #expect(result.exitCode == 1)
        #expect(result.standardError.hasPrefix("widgetctl: standard input:3:30: "), "\(result.standardError)")
        #expect(result.standardError.contains("temperature"))
        #expect(result.standardError.hasSuffix(#"; a field is an object: {"value": …}, with "privacy": "sensitive" or "public" if it needs one"# + "\n"))
    }

    // MARK: Item: the same wrong passcode

    @Test func theSameWrongPasscodeAgainSaysItDoesNotCountAgain() throws {
        let counted = #"{"state":"locked","passcodeSet":true,"classes":[],"failedAttempts":3,"#
            + #""settings":{"lockScreenWidgetsAccess":false,"hideSensitiveComplications":"off","hiddenComplications":[]}}"#
        let server = try FakeVarlinkServer { request in
            if request.contains("GetStatus") { return [reply(counted)] }
            if !request.contains("passcode") { return [errorReply("org.varlink.service.InvalidParameter", #"{"parameter":"passcode"}"#)] }
            return [errorReply("io.widgetd.WrongPasscode", #"{"failedAttempts":3}"#)]
        }
        let result = widgetctl(["unlock", "--passcode-stdin"], socket: server.path, input: BytesInput("wrong\n"))
        #expect(result.exitCode == 65)
        #expect(result.standardError
            == "widgetctl: wrong passcode, the same as the last failed attempt: it does not count again (still 3 failed attempts)\n")
    }

    @Test func aNewWrongPasscodeIsCountedAsBefore() {
        let failure = DaemonErrorMessage.failure(
            forErrorReply: "io.widgetd.WrongPasscode", parameters: ["failedAttempts": .number(JSONNumber(4))])
        let noted = Widgetctl.Unlock.notingRepeat(failure, failedAttemptsBefore: .number(JSONNumber(3)))
        #expect(noted.message == "wrong passcode (4 failed attempts)")
    }

    // MARK: Item: get of a widget not stored

    @Test func getOfAWidgetNotStoredIsNoSuchWidgetToItsOwnerOrAnAdministrator() throws {
        let server = try Self.server([
            "io.widgetd.Host.GetPresentation": reply(Self.placeholderPresentation),
            "io.widgetd.Provider.ListProviders": reply(#"{"providers":["# + Self.weatherProvider + "]}"),
            "io.widgetd.Host.ListWidgets": reply(#"{"widgets":[]}"#),
        ])
        let result = widgetctl(["get", "com.example.weather/gone", "--json"], socket: server.path)
        #expect(result.exitCode == 1)
        #expect(result.standardError == "widgetctl: no such widget com.example.weather/gone (widgetctl list shows the stored widgets)\n")
        #expect(result.standardOutput == #"{"error":"io.widgetd.WidgetNotFound","parameters":{"widget":"com.example.weather/gone"}}"# + "\n")
    }

    @Test func aHostStillSeesThePlaceholderAndWhyInWords() throws {
        let server = try Self.server([
            "io.widgetd.Host.GetPresentation": reply(Self.placeholderPresentation),
            "io.widgetd.Provider.ListProviders": errorReply("io.widgetd.PermissionDenied"),
            "io.widgetd.Device.GetStatus": reply(Self.status),
        ])
        let result = widgetctl(["get", "com.example.weather/gone"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("placeholder: no readable timeline is stored for it"))
        #expect(!result.standardOutput.contains("(placeholder)"))
    }

    /// A timeline written with `"entries": []` has no current entry: its provider is told
    /// so, not that no readable timeline is stored.
    @Test func anEmptyTimelinesPlaceholderSaysItHasNoEntries() throws {
        let server = try Self.server([
            "io.widgetd.Host.GetPresentation": reply(Self.placeholderPresentation),
            "io.widgetd.Provider.ListProviders": reply(#"{"providers":["# + Self.weatherProvider + "]}"),
            "io.widgetd.Host.ListWidgets": reply(
                #"{"widgets":[{"widget":"com.example.weather/gone","provider":"com.example.weather","kind":"gone","class":"complete","generation":1}]}"#),
            "io.widgetd.Provider.GetTimeline": reply(#"{"entries":[],"policy":{"kind":"never"},"generation":1}"#),
            "io.widgetd.Device.GetStatus": reply(Self.status),
        ])
        let result = widgetctl(["get", "com.example.weather/gone"], socket: server.path, columns: nil)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains(#"placeholder: its timeline has no entries ("entries": []): there is no current entry to show"#))
        #expect(!result.standardOutput.contains("no readable timeline"))
    }

    @Test func aStoredWidgetsPlaceholderSaysItIsLocked() throws {
        let locked = Self.status.replacingOccurrences(of: "\"unlocked\"", with: "\"beforeFirstUnlock\"")
        let server = try Self.server([
            "io.widgetd.Host.GetPresentation": reply(Self.placeholderPresentation),
            "io.widgetd.Provider.ListProviders": reply(#"{"providers":["# + Self.weatherProvider + "]}"),
            "io.widgetd.Host.ListWidgets": reply(
                #"{"widgets":[{"widget":"com.example.weather/gone","provider":"com.example.weather","kind":"gone","class":"complete","generation":1}]}"#),
            "io.widgetd.Device.GetStatus": reply(locked),
        ])
        let result = widgetctl(["get", "com.example.weather/gone"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("placeholder: not unlocked since widgetd started"))
    }

    // MARK: Item: status timers

    @Test func statusShowsTheRunningTimers() throws {
        let status = Self.status.replacingOccurrences(of: "\"unlocked\"", with: "\"locked\"")
            .replacingOccurrences(of: "\"failedAttempts\":0,", with: #""failedAttempts":0,"classAGraceEndsIn":6,"passcodeRequiredIn":259194,"#)
        let server = try FakeVarlinkServer(replies: [reply(status)])
        let result = widgetctl(["status"], socket: server.path)
        #expect(result.standardOutput.contains("Class A purged:   in 6 s (class A grace after the lock)\n"))
        #expect(result.standardOutput.contains("Passcode needed:  in 71 h 59 min (RequirePasscodeAfterSec=: class C purged too)\n"), "\(result.standardOutput)")
    }

    // MARK: Item: introspect and call

    @Test func introspectShowsTheServiceAndItsInterfaces() throws {
        let server = try Self.server([
            "org.varlink.service.GetInfo": reply(
                #"{"vendor":"widgetd","product":"widgetd","version":"0.1.0","url":"man:widgetd(8)","interfaces":["org.varlink.service","io.widgetd.Device"]}"#),
        ])
        let result = widgetctl(["introspect"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            Vendor:     widgetd
            Product:    widgetd
            Version:    0.1.0
            URL:        man:widgetd(8)
            Interfaces:
              org.varlink.service
              io.widgetd.Device

            """)
    }

    @Test func introspectAnInterfacePrintsItsDefinition() throws {
        let server = try Self.server([
            "org.varlink.service.GetInterfaceDescription": reply(#"{"description":"interface io.widgetd.Host\n"}"#),
        ])
        let result = widgetctl(["introspect", "io.widgetd.Host"], socket: server.path)
        #expect(result.standardOutput == "interface io.widgetd.Host\n")
        #expect(server.requests == [
            #"{"method":"org.varlink.service.GetInterfaceDescription","parameters":{"interface":"io.widgetd.Host"}}"#,
        ])
    }

    @Test func callSendsTheMethodAndParametersAndPrintsTheReply() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"widgets":[]}"#)])
        let result = widgetctl(["call", "io.widgetd.Host.ListWidgets", #"{"limit": 5}"#], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "{\"widgets\":[]}\n")
        #expect(server.requests == [#"{"method":"io.widgetd.Host.ListWidgets","parameters":{"limit":5}}"#])
    }

    @Test func callWithMoreFollowsTheStream() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"n":1}"#, continues: true), reply(#"{"n":2}"#)])
        let result = widgetctl(["call", "io.widgetd.Device.Monitor", "--more"], socket: server.path)
        #expect(result.standardOutput == "{\"n\":1}\n{\"n\":2}\n")
        #expect(server.requests == [#"{"method":"io.widgetd.Device.Monitor","more":true,"parameters":{}}"#])
    }

    @Test(arguments: [
        (["call", "GetStatus"], "Error: not a method's full name: 'GetStatus' (e.g. io.widgetd.Device.GetStatus)"),
        (["call", "io.widgetd.Device.GetStatus", "[1]"], "Error: the parameters must be a JSON object, e.g. '{}'"),
        (["call", "io.widgetd.Device.GetStatus", "{\"a\":}"], "Error: the parameters are not JSON: line 1, column 6: "),
    ])
    func callRefusesWhatIsNoCall(arguments: [String], firstLine: String) {
        let result = widgetctl(arguments)
        #expect(result.exitCode == 64)
        #expect(result.standardError.hasPrefix(firstLine), "\(result.standardError)")
    }
}
