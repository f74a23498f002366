import Foundation
import Testing
@testable import WidgetControl
import WidgetModel
import WidgetdWire

@Suite struct OutputTests {
    @Test func statusJSONIsTheReplyParameters() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.status)])
        let result = widgetctl(["--json", "status"], socket: server.path)
        #expect(result.exitCode == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["state"] as? String == "locked")
        #expect(object["failedAttempts"] as? Int == 5)
        #expect((object["classes"] as? [Any])?.count == 4)
        #expect(result.standardOutput.hasSuffix("}\n"))
        #expect(result.standardOutput.filter { $0 == "\n" }.count == 1)
        #expect(server.requests == [#"{"method":"io.widgetd.Device.GetStatus","parameters":{}}"#])
    }

    @Test func jsonFlagAlsoWorksAfterTheCommand() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.widgets)])
        let result = widgetctl(["list", "--json"], socket: server.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect((object["widgets"] as? [Any])?.count == 2)
    }

    @Test func statusForAPerson() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.status)])
        let result = widgetctl(["status"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            State:            locked
            Passcode:         set
            Failed attempts:  5 (try again in 43 s)
            Class keys:
              complete                              unavailable
              completeUnlessOpen                    unavailable
              completeUntilFirstUserAuthentication  available
              none                                  available
            Lock Screen widgets when locked:  off (redacted)
            Hide sensitive complications:     selected (com.example.bank/balance)

            """)
    }

    @Test func statusShowsTheWatchedSessionsWhenTheDaemonFollowsThem() throws {
        for (sessions, line) in [(#"["3","c1"]"#, "Sessions:         3 c1"), ("[]", "Sessions:         none watched")] {
            let server = try FakeVarlinkServer(replies: [reply(String(Fixtures.status.dropLast()) + #","sessions":"# + sessions + "}")])
            let result = widgetctl(["status"], socket: server.path)
            #expect(result.exitCode == 0)
            #expect(result.standardOutput.contains("Failed attempts:  5 (try again in 43 s)\n\(line)\nClass keys:"), "\(result.standardOutput)")
        }
    }

    @Test func statusShowsWhatProtectionIsInForce() throws {
        let protection = #","protection":{"deviceKey":"tpm2","attempts":"software","rollback":"catalog"}}"#
        let server = try FakeVarlinkServer(replies: [reply(String(Fixtures.status.dropLast()) + protection)])
        let result = widgetctl(["status"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("""
            Failed attempts:  5 (try again in 43 s)
            Device key:       tpm2
            Attempts counted: software
            Rollback check:   catalog
            Class keys:
            """), "\(result.standardOutput)")
    }

    @Test func statusShowsWhyTheDeviceIsLocked() throws {
        let server = try FakeVarlinkServer(replies: [reply(String(Fixtures.status.dropLast()) + #","lockedBy":"session"}"#)])
        let result = widgetctl(["status"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.hasPrefix("State:            locked\nLocked by:        session\nPasscode:         set\n"), "\(result.standardOutput)")
    }

    @Test func statusSaysHowToBringAnOutOfStepPasscodeBackInStep() throws {
        for (inStep, line) in [
            ("false", "Passcode:         out of step with the login password — run widgetctl passcode change"),
            ("true", "Passcode:         set"),
        ] {
            let server = try FakeVarlinkServer(replies: [reply(String(Fixtures.status.dropLast()) + #","passcodeInStep":"# + inStep + "}")])
            let result = widgetctl(["status"], socket: server.path)
            #expect(result.exitCode == 0)
            #expect(result.standardOutput.contains("State:            locked\n\(line)\nFailed attempts:"), "\(result.standardOutput)")
        }
    }

    @Test func statusJSONPassesLockedByPasscodeInStepAndSessionsThrough() throws {
        let extended = String(Fixtures.status.dropLast()) + #","lockedBy":"inactivity","passcodeInStep":false,"sessions":["3"]}"#
        let server = try FakeVarlinkServer(replies: [reply(extended)])
        let result = widgetctl(["--json", "status"], socket: server.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["lockedBy"] as? String == "inactivity")
        #expect(object["passcodeInStep"] as? Bool == false)
        #expect(object["sessions"] as? [String] == ["3"])
    }

    @Test func monitorSaysWhoLockedTheDevice() throws {
        let state = #"{"event":{"kind":"state","state":"beforeFirstUnlock","passcodeSet":true,"settings":\#(Fixtures.settings),"lockedBy":"inactivity"}}"#
        let server = try FakeVarlinkServer(replies: [reply(state)])
        let result = widgetctl(["monitor"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == "2026-12-01T09:16:38Z  state: beforeFirstUnlock (passcode set, locked by inactivity)\n")
        let json = try FakeVarlinkServer(replies: [reply(state)])
        let line = widgetctl(["monitor", "--json"], socket: json.path).standardOutput
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((object?["event"] as? [String: Any])?["lockedBy"] as? String == "inactivity")
    }

    @Test func statusShowsTheDaemonsWarningsLast() throws {
        let withWarnings = String(Fixtures.status.dropLast()) + #","warnings":["settingsUnreadable","memoryNotLocked","somethingNew"]}"#
        let server = try FakeVarlinkServer(replies: [reply(withWarnings)])
        let result = widgetctl(["status"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.hasSuffix("""
            Hide sensitive complications:     selected (com.example.bank/balance)
            Warning: settings unreadable: the most restrictive settings apply until they are set again
            Warning: memory not locked: decrypted timelines are not cached (or, with RequireLockedMemory=no, cached unlocked); raise LimitMEMLOCK=
            Warning: somethingNew

            """), "\(result.standardOutput)")
    }

    @Test func listIsATableSortedByWidget() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.widgets)])
        let result = widgetctl(["list"], socket: server.path)
        #expect(result.standardOutput == """
            WIDGET                               FAMILY                CLASS     GENERATION
            com.example.bank/balance             -                     none      12
            com.example.weather/forecast#lock-1  accessoryRectangular  complete  3

            """)
    }

    /// A daemon whose `next` does not move past the page it ends (a hostile or broken
    /// one) would be followed for ever, each page kept in memory.
    @Test(arguments: [
        #"{"widgets":[{"widget":"a/b","provider":"a","kind":"b","class":"none","generation":1}],"next":"a/b"}"#,
        #"{"widgets":[{"widget":"a/c","provider":"a","kind":"c","class":"none","generation":1}],"next":"a/a"}"#,
        #"{"widgets":[],"next":"a/z"}"#,
    ])
    func listRefusesAPageWhoseNextDoesNotMoveOn(page: String) throws {
        let server = try FakeVarlinkServer { _ in [reply(page)] }
        let result = widgetctl(["list"], socket: server.path)
        #expect(result.exitCode == 1)
        #expect(result.standardError.contains("does not understand (ListWidgets' next does not move"), "\(result.standardError)")
        #expect(server.requests.count <= 2)
    }

    @Test func timelineShowsTheProvidersView() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.timeline)])
        let result = widgetctl(["timeline", "a/b"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            a/b: family systemSmall, generation 4, reload atEnd, 1 entries
            2026-11-29T13:00:00Z  relevance 0.5 for 1 h
              city         Paris  (public)
              temperature  21  (sensitive)

            """)
        #expect(server.requests == [#"{"method":"io.widgetd.Provider.GetTimeline","parameters":{"widget":"a/b"}}"#])
    }

    @Test func monitorPrintsEachEventUntilTheStreamEnds() throws {
        let state = #"{"event":{"kind":"state","state":"locked","passcodeSet":true,"settings":\#(Fixtures.settings)}}"#
        let change = #"{"event":{"kind":"settings","state":"locked","passcodeSet":true,"settings":\#(Fixtures.settings)}}"#
        let server = try FakeVarlinkServer(replies: [reply(state, continues: true), reply(change)])
        let result = widgetctl(["monitor"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            2026-12-01T09:16:38Z  state: locked (passcode set)
            2026-12-01T09:16:38Z  settings: lock-screen-widgets off, hide-sensitive-complications selected (com.example.bank/balance)

            """)
        #expect(server.requests == [#"{"method":"io.widgetd.Device.Monitor","more":true,"parameters":{}}"#])
    }

    @Test func monitorJSONIsOneObjectPerLine() throws {
        let state = #"{"event":{"kind":"state","state":"unlocked","passcodeSet":false,"settings":\#(Fixtures.settings)}}"#
        let server = try FakeVarlinkServer(replies: [reply(state, continues: true), reply(state, continues: true), reply(state)])
        let result = widgetctl(["monitor", "--json"], socket: server.path)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect((object?["event"] as? [String: Any])?["state"] as? String == "unlocked")
            #expect(object?["timestamp"] as? String == "2026-12-01T09:16:38Z")
        }
    }

    @Test func streamEndingWithAnErrorReportsIt() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), errorReply("io.widgetd.WidgetNotFound", #"{"widget":"a/b"}"#),
        ])
        let result = widgetctl(["watch", "a/b", "--json"], socket: server.path)
        #expect(result.exitCode == 1)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last == #"{"error":"io.widgetd.WidgetNotFound","parameters":{"widget":"a/b"}}"#)
        #expect(result.standardError == "widgetctl: no widget a/b (widgetctl list shows the stored widgets)\n")
    }

    @Test func settingsShowsTheSettings() throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"settings":\#(Fixtures.settings)}"#)])
        let result = widgetctl(["settings"], socket: server.path)
        #expect(result.standardOutput == """
            Lock Screen widgets when locked:  off (redacted)
            Hide sensitive complications:     selected (com.example.bank/balance)

            """)
        #expect(server.requests == [#"{"method":"io.widgetd.Device.GetSettings","parameters":{}}"#])
    }

    /// One widget hidden on the lock screen, the others shown: `selected` and its list.
    @Test func settingsShowsTheWidgetsHiddenOnTheLockScreen() throws {
        let settings = #"{"lockScreenWidgetsAccess":true,"hiddenLockScreenWidgets":["com.example.mail/inbox"],"hideSensitiveComplications":"off","hiddenComplications":[]}"#
        let server = try FakeVarlinkServer(replies: [reply(#"{"settings":\#(settings)}"#)])
        let result = widgetctl(["settings"], socket: server.path)
        #expect(result.standardOutput == """
            Lock Screen widgets when locked:  selected (redacted: com.example.mail/inbox)
            Hide sensitive complications:     off

            """)
        #expect(Widgetctl.Monitor.line(for: DeviceEvent(
            kind: .settings, state: .locked, passcodeSet: true,
            settings: WidgetModel.Settings(hiddenLockScreenWidgets: [try WidgetID("com.example.mail/inbox")])))
            == "settings: lock-screen-widgets selected (com.example.mail/inbox), hide-sensitive-complications off")
    }

    static let settingChanges: [([String], String)] = [
        (["lock-screen-widgets", "on"], #"{"hiddenLockScreenWidgets":[],"lockScreenWidgetsAccess":true}"#),
        (["lock-screen-widgets", "off"], #"{"lockScreenWidgetsAccess":false}"#),
        (["lock-screen-widgets", "selected"], #"{"lockScreenWidgetsAccess":true}"#),
        (["lock-screen-widgets", "selected", "a/b", "c/d#1"],
         #"{"hiddenLockScreenWidgets":["a/b","c/d#1"],"lockScreenWidgetsAccess":true}"#),
        (["hide-sensitive-complications", "off"], #"{"hideSensitiveComplications":"off"}"#),
        (["hide-sensitive-complications", "all"], #"{"hideSensitiveComplications":"all"}"#),
        (["hide-sensitive-complications", "selected"], #"{"hideSensitiveComplications":"selected"}"#),
        (["hide-sensitive-complications", "selected", "a/b", "c/d#1"],
         #"{"hiddenComplications":["a/b","c/d#1"],"hideSensitiveComplications":"selected"}"#),
    ]

    @Test(arguments: settingChanges)
    func settingsSetSendsOnlyWhatChanges(words: [String], parameters: String) throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"settings":\#(Fixtures.settings)}"#)])
        let result = widgetctl(["settings", "set"] + words, socket: server.path)
        #expect(result.exitCode == 0)
        #expect(server.requests == [#"{"method":"io.widgetd.Device.SetSettings","parameters":\#(parameters)}"#])
    }

    static let simpleCalls: [([String], String, String)] = [
        (["lock"], #"{"method":"io.widgetd.Device.Lock","parameters":{}}"#, "Locked.\n"),
        (["delete", "a/b#1"], #"{"method":"io.widgetd.Provider.DeleteTimeline","parameters":{"widget":"a/b#1"}}"#, "Deleted a/b#1.\n"),
        (["reload"], #"{"method":"io.widgetd.Host.ReloadTimelines","parameters":{}}"#, "Reload requested for every provider.\n"),
        (["reload", "com.x"], #"{"method":"io.widgetd.Host.ReloadTimelines","parameters":{"provider":"com.x"}}"#,
         "Reload requested for com.x.\n"),
        (["reload", "com.x/k"], #"{"method":"io.widgetd.Host.ReloadTimelines","parameters":{"kind":"k","provider":"com.x"}}"#,
         "Reload requested for com.x/k.\n"),
    ]

    @Test(arguments: simpleCalls)
    func commandsSendTheirCall(arguments: [String], request: String, output: String) throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(arguments, socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == output)
        #expect(server.requests == [request])
    }

    @Test func wipeWithoutYesAndWithoutATerminalIsAUsageError() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["wipe"], socket: server.path)
        #expect(result.exitCode == 64)
        #expect(result.standardError == "widgetctl: wipe needs confirmation: run it at a terminal, or pass --yes\n")
        #expect(server.requests.isEmpty)
    }

    @Test(arguments: [("WIPE\n", true), ("wipe\n", false), ("\n", false), ("", false)])
    func wipeAtATerminalNeedsWIPETyped(answer: String, wipes: Bool) throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["wipe"], socket: server.path, input: BytesInput(answer, isTerminal: true))
        #expect(result.exitCode == (wipes ? 0 : 1))
        #expect(server.requests == (wipes ? [#"{"method":"io.widgetd.Device.Wipe","parameters":{"confirm":"WIPE"}}"#] : []))
    }

    @Test func wipeWithYesDoesNotAsk() throws {
        let server = try FakeVarlinkServer(replies: [reply()])
        let result = widgetctl(["wipe", "--yes"], socket: server.path, input: BytesInput("", isTerminal: true))
        #expect(result.exitCode == 0)
        #expect(result.standardError == "")
        #expect(server.requests == [#"{"method":"io.widgetd.Device.Wipe","parameters":{"confirm":"WIPE"}}"#])
    }

    /// Each presentation `watch` prints carries the time it arrived.
    @Test func watchStampsEachPresentation() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), reply(Fixtures.contentPresentation),
        ])
        let text = widgetctl(["watch", "a/b"], socket: server.path)
        #expect(text.standardOutput.components(separatedBy: "2026-12-01T09:16:38Z\n┌─").count == 3)
        let json = widgetctl(["watch", "a/b", "--json"], socket: server.path)
        let lines = json.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["timestamp"] as? String == "2026-12-01T09:16:38Z")
            #expect(object?["presentation"] != nil)
        }
    }

    /// Surfaces: the command line's spelling and the wire's both work; the wire gets its own.
    @Test(arguments: [
        ("lock-screen", "lockScreen"), ("lockScreen", "lockScreen"), ("always-on", "alwaysOn"),
        ("alwaysOn", "alwaysOn"), ("home-screen", "homeScreen"), ("remote", "remote"),
    ])
    func surfacesAcceptBothSpellings(given: String, sent: String) throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.contentPresentation)])
        let result = widgetctl(["get", "a/b", "--surface", given], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(server.requests
            == [#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"\#(sent)","widget":"a/b"}}"#])
    }

    /// Settings: `lock-screen-widgets` and `lockScreenWidgets` name the same setting.
    @Test(arguments: [
        (["lockScreenWidgets", "on"], #"{"hiddenLockScreenWidgets":[],"lockScreenWidgetsAccess":true}"#),
        (["hideSensitiveComplications", "all"], #"{"hideSensitiveComplications":"all"}"#),
    ])
    func settingsAcceptBothSpellings(words: [String], parameters: String) throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"settings":\#(Fixtures.settings)}"#)])
        let result = widgetctl(["settings", "set"] + words, socket: server.path)
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(server.requests == [#"{"method":"io.widgetd.Device.SetSettings","parameters":\#(parameters)}"#])
    }

    /// `settings` alone and `settings show` both show the settings.
    @Test(arguments: [["settings"], ["settings", "show"]])
    func settingsShowIsTheDefault(arguments: [String]) throws {
        let server = try FakeVarlinkServer(replies: [reply(#"{"settings":\#(Fixtures.settings)}"#)])
        let result = widgetctl(arguments, socket: server.path)
        #expect(result.exitCode == 0)
        #expect(server.requests == [#"{"method":"io.widgetd.Device.GetSettings","parameters":{}}"#])
    }
}
