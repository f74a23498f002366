import Foundation
import Glibc
import Testing

/// The real `widgetctl` against a real `widgetd` (issue: the client CLI).
@Suite struct WidgetctlTests {
    static var binary: URL { DaemonProcess.binary.deletingLastPathComponent().appendingPathComponent("widgetctl") }

    /// The repository's example files (config/), found from this source file.
    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs widgetctl with `input` on standard input.
    private func widgetctl(
        _ daemon: DaemonProcess?, _ arguments: [String], input: String = "", environment: [String: String] = [:]
    ) throws -> ProcessRunner.Result {
        let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("widgetctl-in-\(UUID().uuidString)")
        try input.write(to: inputFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: inputFile) }
        var env = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1"]
        if let daemon { env["WIDGETD_SOCKET"] = daemon.socketPath }
        for (key, value) in environment { env[key] = value }
        return try ProcessRunner.run(Self.binary, arguments, environment: env, standardInput: inputFile)
    }

    @Test func aSessionFromPasscodeToLockScreen() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        // The example file, and a timeline with a sensitive field.
        let example = Self.repository.appendingPathComponent("config/timelines/com.example.weather.json").path
        #expect(try widgetctl(daemon, ["put", "com.example.weather/forecast#lock-1", example]).status == 0)
        let sensitive = daemon.root.appendingPathComponent("sensitive.json")
        var parameters = Fixtures.putParameters("com.example.weather/forecast")
        parameters["widget"] = nil
        try JSONSerialization.data(withJSONObject: parameters).write(to: sensitive)

        #expect(try widgetctl(daemon, ["passcode", "set", "--passcode-stdin"], input: "1234\n").status == 0)
        let put = try widgetctl(daemon, ["--json", "put", "com.example.weather/forecast", sensitive.path])
        #expect(put.status == 0, "\(put.error)")
        let generation = try JSONSerialization.jsonObject(with: Data(put.output.utf8)) as? [String: Any]
        #expect(generation?["generation"] as? Int != nil)

        #expect(try widgetctl(daemon, ["settings", "set", "lock-screen-widgets", "off"]).status == 0)
        #expect(try widgetctl(daemon, ["lock"]).status == 0)
        let status = try JSONSerialization.jsonObject(
            with: Data(try widgetctl(daemon, ["--json", "status"]).output.utf8)) as? [String: Any]
        #expect(status?["state"] as? String == "locked")

        // Locked, lock screen, access off: the sensitive field is drawn as bars.
        let locked = try widgetctl(daemon, ["get", "com.example.weather/forecast", "--surface", "lockScreen"])
        #expect(locked.status == 0)
        #expect(locked.output.contains("redacted"))
        #expect(locked.output.contains("█"))
        #expect(!locked.output.contains("SECRET-4711"))

        #expect(try widgetctl(daemon, ["unlock", "--passcode-stdin"], input: "1234\n").status == 0)
        let unlocked = try widgetctl(daemon, ["--json", "get", "com.example.weather/forecast", "--surface", "lockScreen"])
        let presentation = (try JSONSerialization.jsonObject(with: Data(unlocked.output.utf8)) as? [String: Any])?["presentation"] as? [String: Any]
        #expect(presentation?["mode"] as? String == "content")
    }

    @Test func wrongPasscodeIsOneClearLineAndExit65() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        #expect(try widgetctl(daemon, ["passcode", "set", "--passcode-stdin"], input: "1234\n").status == 0)
        #expect(try widgetctl(daemon, ["lock"]).status == 0)
        let wrong = try widgetctl(daemon, ["unlock", "--passcode-stdin", "--json"], input: "0000\n")
        #expect(wrong.status == 65)
        #expect(wrong.error.split(separator: "\n").count == 1)
        #expect(!wrong.error.contains("0000"))
        let object = try JSONSerialization.jsonObject(with: Data(wrong.output.utf8)) as? [String: Any]
        #expect(object?["error"] as? String == "io.widgetd.WrongPasscode")
        #expect((object?["parameters"] as? [String: Any])?["failedAttempts"] as? Int == 1)
        #expect(!wrong.output.contains("0000"))
    }

    /// unlock's checks before the prompt (GetStatus, and Unlock without a passcode to
    /// learn the role) count no failed attempt in the real daemon.
    @Test func unlocksChecksCountNoAttempt() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        #expect(try widgetctl(daemon, ["passcode", "set", "--passcode-stdin"], input: "1234\n").status == 0)
        #expect(try widgetctl(daemon, ["lock"]).status == 0)
        // Standard input ends before a passcode: only the checks reach the daemon.
        let nothing = try widgetctl(daemon, ["unlock", "--passcode-stdin"], input: "")
        #expect(nothing.status == 1)
        #expect(nothing.error == "widgetctl: no passcode given (standard input ended)\n")
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["failedAttempts"] as? Int == 0)
        #expect(status["state"] as? String == "locked")
    }

    /// The daemon and widgetctl refuse the same file: a trailing comma never becomes a
    /// timeline (before, widgetctl sent it re-encoded and the daemon stored it).
    @Test func putRefusesTheJSONTheDaemonRefuses() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let file = daemon.root.appendingPathComponent("trailing.json")
        try #"{"entries":[{"date":"2026-11-29T13:00:00Z","fields":{"t":{"value":1}}}],}"#.write(
            to: file, atomically: true, encoding: .utf8)
        let result = try widgetctl(daemon, ["put", "com.example.weather/forecast", file.path])
        #expect(result.status == 1)
        #expect(result.error.hasPrefix("widgetctl: \(file.path):1:73: not JSON: "))
        let list = try daemon.client().ok("io.widgetd.Host.ListWidgets")
        #expect((list["widgets"] as? [Any])?.isEmpty == true)
    }

    /// `put` and `append` send each entry's fields (and the placeholder's) in the order
    /// the file has them, whitespace and all dropped: hosts draw fields in that order.
    @Test func putAndAppendSendFieldsInTheFilesOrder() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let widget = FieldOrderEndToEndTests.weather
        let date = Fixtures.rfc3339(Date().addingTimeInterval(-60))
        let later = Fixtures.rfc3339(Date().addingTimeInterval(3600))
        let file = daemon.root.appendingPathComponent("ordered.json")
        try """
            {"entries": [{"date": "\(date)",
                          "fields": \(FieldOrderEndToEndTests.fields(FieldOrderEndToEndTests.putOrder, prefix: "put a b"))}],
             "placeholder": {"fields": \(FieldOrderEndToEndTests.fields(FieldOrderEndToEndTests.placeholderOrder, prefix: "sample"))}}
            """.write(to: file, atomically: true, encoding: .utf8)
        let put = try widgetctl(daemon, ["put", widget, file.path])
        #expect(put.status == 0, "\(put.error)")
        let more = daemon.root.appendingPathComponent("more.json")
        try #"{ "entries" : [ {"date":"\#(later)", "fields": \#(FieldOrderEndToEndTests.fields(FieldOrderEndToEndTests.appendOrder, prefix: "later"))} ] }"#
            .write(to: more, atomically: true, encoding: .utf8)
        let append = try widgetctl(daemon, ["append", widget, more.path])
        #expect(append.status == 0, "\(append.error)")

        let client = try daemon.client()
        let timeline = try ExactNumberEndToEndTests.rawCall(
            client, #"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"\#(widget)"}}"#)
        #expect(FieldOrderEndToEndTests.fieldOrders(in: timeline) == [FieldOrderEndToEndTests.putOrder, FieldOrderEndToEndTests.appendOrder], "\(timeline)")
        // Spaces inside a value are the value's own.
        #expect(timeline.contains(#""value":"put a b-zulu""#), "\(timeline)")
        // The placeholder, shown by a locked class-A widget.
        #expect(try widgetctl(daemon, ["put", FieldOrderEndToEndTests.health, file.path]).status == 0)
        try client.ok("io.widgetd.Device.Lock")
        let placeholder = try ExactNumberEndToEndTests.rawCall(client, FieldOrderEndToEndTests.presentationCall(FieldOrderEndToEndTests.health, "homeScreen"))
        #expect(placeholder.contains(#""mode":"placeholder""#), "\(placeholder)")
        #expect(FieldOrderEndToEndTests.fieldOrders(in: placeholder) == [FieldOrderEndToEndTests.placeholderOrder], "\(placeholder)")
    }

    /// `widgetctl providers` against the daemon: every registered provider with its
    /// class, owner and file, and a broken providers.d/ file with why it registers nothing.
    @Test func providersListsTheRegisteredAndTheDisabled() throws {
        let daemon = try DaemonProcess()
        try "[Provider]\nId=com.example.broken\nUser=0\nDataProtection=sometimes\n".write(
            to: daemon.root.appendingPathComponent("etc/providers.d/broken.conf"), atomically: true, encoding: .utf8)
        try daemon.start()
        let result = try widgetctl(daemon, ["providers"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("PROVIDER") == true)
        let weather = lines.first { $0.hasPrefix("com.example.weather ") } ?? ""
        #expect(weather.contains("completeUntilFirstUserAuthentication"))
        #expect(weather.contains(" root "))
        #expect(weather.hasSuffix("etc/providers.d/com.example.weather.conf"))
        #expect(result.output.contains("broken.conf:4: "), "\(result.output)")
        #expect(result.output.contains("widgetd --check-config"))

        // A write for the disabled provider names the file and why, not "add a file".
        let delete = try widgetctl(daemon, ["delete", "com.example.broken/any"])
        #expect(delete.status == 1)
        #expect(delete.error.contains("com.example.broken is not registered; these providers.d/ files register nothing: "))
        #expect(delete.error.contains("broken.conf:4: "), "\(delete.error)")
    }

    /// `get` of a widget nothing is stored for: "no such widget" to an administrator
    /// (root here), exit 1; a stored one still previews.
    @Test func getOfAWidgetNotStoredIsNoSuchWidget() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let missing = try widgetctl(daemon, ["get", "com.example.weather/nothing"])
        #expect(missing.status == 1)
        #expect(missing.error == "widgetctl: no such widget com.example.weather/nothing (widgetctl list shows the stored widgets)\n")
        try daemon.client().ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("com.example.weather/forecast"))
        #expect(try widgetctl(daemon, ["get", "com.example.weather/forecast"]).status == 0)
    }

    /// `introspect` and `call` speak org.varlink.service and any method, with no other tool.
    @Test func introspectAndCallExploreTheDaemon() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let info = try widgetctl(daemon, ["introspect"])
        #expect(info.status == 0)
        #expect(info.output.contains("URL:        man:widgetd(8)\n"))
        #expect(info.output.contains("  io.widgetd.Host\n"))
        let host = try widgetctl(daemon, ["introspect", "io.widgetd.Host"])
        #expect(host.output.hasPrefix("# For the programs that draw widgets"))
        let call = try widgetctl(daemon, ["call", "io.widgetd.Host.ListWidgets", #"{"limit": 1}"#])
        #expect(call.status == 0, "\(call.error)")
        #expect(call.output == "{\"widgets\":[]}\n")
        let unknown = try widgetctl(daemon, ["call", "io.widgetd.Host.Nothing"])
        #expect(unknown.status == 1)
    }

    /// `status` shows the grace left after a lock and when the passcode will be needed.
    @Test func statusShowsTheTimersALockStarts() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=600"])
        try daemon.start()
        #expect(try widgetctl(daemon, ["passcode", "set", "--passcode-stdin"], input: "1234\n").status == 0)
        #expect(try widgetctl(daemon, ["lock"]).status == 0)
        let status = try widgetctl(daemon, ["status"])
        #expect(status.output.contains("Class A purged:   in "), "\(status.output)")
        #expect(status.output.contains("Passcode needed:  in "))
    }

    @Test func aPasscodeOnTheCommandLineIsRefused() throws {
        let result = try widgetctl(nil, ["unlock", "1234"])
        #expect(result.status == 64)
        #expect(!result.error.isEmpty)
    }

    /// The package installs one binary: widgetctl is a link to widgetd, which must then
    /// be the client (its main picks by the name it is called by), not the daemon.
    @Test func widgetdCalledAsWidgetctlIsTheClient() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let link = daemon.root.appendingPathComponent("bin/widgetctl")
        try FileManager.default.createDirectory(
            at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: DaemonProcess.binary)
        let result = try ProcessRunner.run(
            link, ["status"], environment: ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "WIDGETD_SOCKET": daemon.socketPath])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("State:"))
    }

    @Test func aMissingDaemonIsExit69() throws {
        let result = try widgetctl(nil, ["status"], environment: ["WIDGETD_SOCKET": "/nonexistent/widgetd.sock"])
        #expect(result.status == 69)
        #expect(result.error.contains("/nonexistent/widgetd.sock"))
    }

    /// A peer without the unlock role is told so before it types: exit 77, and the
    /// passcode on its standard input is never read (no prompt, no Unlock with it).
    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func unlockWithoutTheRoleIsRefusedBeforeThePasscode() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        try daemon.client().ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try daemon.client().ok("io.widgetd.Device.Lock")
        chmod(daemon.socketPath, 0o666)
        let input = daemon.root.appendingPathComponent("passcode")
        try "1234\n".write(to: input, atomically: true, encoding: .utf8)
        chmod(input.path, 0o644)
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", Self.binary.path, "--socket", daemon.socketPath,
             "unlock", "--passcode-stdin"],
            standardInput: input)
        #expect(result.status == 77)
        #expect(result.error.hasPrefix("widgetctl: permission denied"))
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "locked")
        #expect(status["failedAttempts"] as? Int == 0)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func aPeerWithoutTheRoleIsExit77() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        chmod(daemon.socketPath, 0o666)
        let result = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", Self.binary.path, "--socket", daemon.socketPath, "lock"])
        #expect(result.status == 77)
    }
}

/// widgetctl's roles and actions against a real daemon (DESIGN §12, §13): the example
/// media widget drawn from roles with its toggle available on the locked lock screen,
/// the mail widget's `open` held until an unlock.
@Suite struct WidgetctlActionTests {
    static let media = "com.example.media/nowplaying#lock-1"
    static let mail = "com.example.mail/inbox#home-1"

    private func widgetctl(_ daemon: DaemonProcess, _ arguments: [String], input: String = "") throws -> ProcessRunner.Result {
        let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("widgetctl-in-\(UUID().uuidString)")
        try input.write(to: inputFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: inputFile) }
        let environment = ["PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TZ": "UTC", "WIDGETD_SOCKET": daemon.socketPath]
        return try ProcessRunner.run(WidgetctlTests.binary, arguments, environment: environment, standardInput: inputFile)
    }

    private func example(_ provider: String) -> String {
        WidgetctlTests.repository.appendingPathComponent("config/timelines/\(provider).json").path
    }

    @Test func rolesAndActionsOfTheExamplesOnTheLockedLockScreen() throws {
        let daemon = try DaemonProcess(providers: DaemonProcess.exampleProviders + [("com.example.media", "none")])
        try daemon.start()
        #expect(try widgetctl(daemon, ["put", Self.media, example("com.example.media")]).status == 0)
        #expect(try widgetctl(daemon, ["put", Self.mail, example("com.example.mail")]).status == 0)
        #expect(try widgetctl(daemon, ["passcode", "set", "--passcode-stdin"], input: "1234\n").status == 0)
        #expect(try widgetctl(daemon, ["lock"]).status == 0)

        let shown = try widgetctl(daemon, ["get", Self.media, "--surface", "lock-screen"])
        #expect(shown.status == 0)
        #expect(shown.output == """
            ┌─ com.example.media/nowplaying#lock-1 · lock-screen ──┐
            │ content                                              │
            ├──────────────────────────────────────────────────────┤
            │ [audio-x-generic] Radio Jazz                         │
            │ So What                                              │
            │ Miles Davis                                          │
            │ █████░░░░░░░░░░░░░░░ 24%                             │
            ├──────────────────────────────────────────────────────┤
            │ • Play (playPause) · toggle, on · available          │
            ├──────────────────────────────────────────────────────┤
            │ entry 2026-11-29T13:55:00Z                           │
            └──────────────────────────────────────────────────────┘

            """)

        // Nothing watches the media provider's actions here (clients/python's tests
        // follow WatchActions): the toggle is shown, and performing it says so.
        let unwatched = try widgetctl(daemon, ["act", Self.media, "playPause", "--surface", "lock-screen"])
        #expect(unwatched.status == 69)
        #expect(unwatched.error
            == "widgetctl: provider com.example.media is not running: nothing watches its actions (start it, or give its providers.d/ file Unit=)\n")

        // The mail widget's `open` needs an unlock: held; an action not shown is exit 1.
        let held = try widgetctl(daemon, ["act", Self.mail, "open", "--surface", "lock-screen"])
        #expect(held.status == 0)
        #expect(held.output == "held: it runs if the device is unlocked within ActionHoldSec= (--wait follows it)\n")
        let missing = try widgetctl(daemon, ["act", Self.mail, "delete", "--surface", "lock-screen"])
        #expect(missing.status == 1)
        #expect(missing.error
            == "widgetctl: no action delete is shown on this surface now (widgetctl get WIDGET --surface S lists the actions)\n")
    }
}
