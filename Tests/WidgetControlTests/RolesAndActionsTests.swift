import Foundation
import Testing
@testable import WidgetControl
import WidgetModel

/// Layout roles and actions in widgetctl (DESIGN §12, §13): previews drawn from roles
/// with no field names, Waybar's line filled from them, and `act` and `actions`.
@Suite struct RolesAndActionsTests {
    /// A media widget drawn from roles, with a toggle that runs now and a button that
    /// needs an unlock. `testNow` is 2026-12-01T09:16:38.75Z; the time zone UTC (the test helper's).
    static let media = #"{"presentation":{"widget":"com.example.media/player","surface":"lockScreen","mode":"content","#
        + #""reasons":[],"luminanceReduced":false,"stale":false,"entry":{"date":"2026-12-01T09:00:00Z","fields":{"#
        + #""1icon":{"value":"media-playback-start","role":"icon"},"2title":{"value":"Radio Nova","role":"title"},"#
        + #""3track":{"value":"So What","role":"value"},"4artist":{"value":"Miles Davis","role":"detail"},"#
        + #""5progress":{"value":75,"role":"gauge","range":[0,300]},"#
        + #""6ends":{"value":"2026-12-01T09:21:38Z","role":"date","style":"timer"},"#
        + #""7started":{"value":"2026-12-01T09:05:00Z","role":"date","style":"time"},"#
        + #""8stream":{"value":"https://example.com/nova"}}},"#
        + #""actions":[{"id":"play","title":"Play","kind":"toggle","isOn":false,"authentication":"alwaysAllowed","available":true},"#
        + #"{"id":"open","title":"Open the app","kind":"button","authentication":"requiresAuthentication","available":false,"requires":"unlock"}]}}"#

    /// The same widget redacted: its title, gauge, date and an action's title hidden.
    static let redactedMedia = #"{"presentation":{"widget":"com.example.media/player","surface":"lockScreen","mode":"redacted","#
        + #""reasons":["privacy"],"luminanceReduced":false,"stale":false,"entry":{"fields":{"#
        + #""1title":{"value":"Radio","redacted":true,"role":"title"},"2track":{"value":"Music","role":"value"},"#
        + #""3progress":{"value":null,"redacted":true,"role":"gauge"},"#
        + #""4ends":{"value":null,"redacted":true,"role":"date","style":"timer"},"#
        + #""5artist":{"value":null,"redacted":true,"role":"detail"}}},"#
        + #""actions":[{"id":"reply","title":"Reply","kind":"button","authentication":"requiresAuthentication","available":false,"requires":"unlock","redacted":true},"#
        + #"{"id":"mute","title":null,"kind":"button","authentication":"alwaysAllowed","available":true,"redacted":true}]}}"#

    @Test func aPreviewWithRolesDrawsNoFieldNamesAndListsActions() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.media)])
        let result = widgetctl(["get", "com.example.media/player", "--surface", "lock-screen"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            ┌─ com.example.media/player · lock-screen ──┐
            │ content                                   │
            ├───────────────────────────────────────────┤
            │ [media-playback-start] Radio Nova         │
            │ So What                                   │
            │ Miles Davis                               │
            │ █████░░░░░░░░░░░░░░░ 25%                  │
            │ 04:59                                     │
            │ 09:05                                     │
            ├───────────────────────────────────────────┤
            │ • Play (play) · toggle, off · available   │
            │ • Open the app (open) · needs unlock      │
            ├───────────────────────────────────────────┤
            │ entry 2026-12-01T09:00:00Z                │
            └───────────────────────────────────────────┘

            """)
        // A field without a role is data for custom hosts: not drawn, nor any name.
        #expect(!result.standardOutput.contains("example.com"))
        #expect(!result.standardOutput.contains("3track"))
    }

    @Test func redactionKeepsTheRoleAndHidesEveryValue() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.redactedMedia)])
        let result = widgetctl(["get", "com.example.media/player", "--surface", "lock-screen"], socket: server.path)
        #expect(result.standardOutput == """
            ┌─ com.example.media/player · lock-screen ──┐
            │ redacted (privacy)                        │
            ├───────────────────────────────────────────┤
            │ █████                                     │
            │ Music                                     │
            │ ░░░░░░░░░░░░░░░░░░░░                      │
            │ ████                                      │
            │ ████                                      │
            ├───────────────────────────────────────────┤
            │ • █████ (reply) · needs unlock            │
            │ • ████ (mute) · available                 │
            └───────────────────────────────────────────┘

            """)
    }

    /// `Text(date, style:)` as the terminal draws it, against `testNow` in UTC+1.
    static let dateCases: [(String, DateStyle, String)] = [
        ("2026-12-01T09:16:00Z", .time, "10:16"),
        ("2026-12-01T23:30:00Z", .date, "2 Dec 2026"),
        ("2026-12-01T09:21:39Z", .relative, "in 5 min"),
        ("2026-12-01T07:10:00Z", .relative, "2 h ago"),
        ("2026-12-01T09:16:10Z", .relative, "now"),
        ("2026-12-04T09:16:38Z", .relative, "in 2 d"),
        ("2026-12-01T09:21:38Z", .timer, "04:59"),
        ("2026-12-01T08:16:00Z", .timer, "1:00:38"),
    ]

    @Test(arguments: dateCases)
    func datesAreDrawnInTheirStyle(date: String, style: DateStyle, drawn: String) throws {
        let parsed = try RFC3339.parse(date)
        #expect(RoleLayout.format(parsed, style: style, now: testNow, utcOffset: 3600) == drawn)
    }

    @Test func onlyAnUnredactedTimerOrRelativeDateTicks() throws {
        func entry(_ field: PresentedField) -> PresentedEntry { PresentedEntry(date: nil, relevance: nil, fields: ["d": field]) }
        let timer = PresentedField(value: .string("2026-12-01T09:21:38Z"), role: .date, style: .timer)
        #expect(RoleLayout.ticks(entry(timer)))
        #expect(!RoleLayout.ticks(entry(PresentedField(value: .null, redacted: true, role: .date, style: .timer))))
        #expect(!RoleLayout.ticks(entry(PresentedField(value: .string("2026-12-01T09:21:38Z"), role: .date, style: .time))))
    }

    @Test func waybarTakesTextFromTheValuePercentageFromTheGaugeAndTooltipFromDetails() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.media, continues: true), reply(Self.redactedMedia)])
        let result = widgetctl(["watch", "com.example.media/player", "--format", "waybar"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            {"alt":"content","class":"content","percentage":25,"text":"So What","tooltip":"Miles Davis"}
            {"alt":"redacted","class":"redacted","percentage":0,"text":"Music","tooltip":"••••"}

            """)
    }

    @Test func waybarFallsBackToTheTitleWithoutAValue() throws {
        let presentation = WatchFormatTests.presentation(
            mode: "content", fields: #"{"t":{"value":"Inbox","role":"title"},"n":{"value":"3 new"}}"#)
        let server = try FakeVarlinkServer(replies: [reply(presentation)])
        let result = widgetctl(["watch", "a/b", "--format", "waybar"], socket: server.path)
        #expect(result.standardOutput == #"{"alt":"content","class":"content","text":"Inbox","tooltip":""}"# + "\n")
    }

    // MARK: act

    static let performPlay =
        #"{"method":"io.widgetd.Host.PerformAction","parameters":{"action":"play","surface":"lockScreen","widget":"com.example.media/player"}}"#

    /// (arguments, replies, exit code, standard output, standard error).
    static let actCases: [([String], [String], Int32, String, String)] = [
        ([], [reply(#"{"outcome":"delivered"}"#)], 0, "delivered\n", ""),
        (["--json"], [reply(#"{"outcome":"delivered"}"#)], 0, #"{"outcome":"delivered"}"# + "\n", ""),
        ([], [reply(#"{"outcome":"held"}"#)], 0,
         "held: it runs if the device is unlocked within ActionHoldSec= (--wait follows it)\n", ""),
        (["--wait"], [reply(#"{"outcome":"held"}"#, continues: true), reply(#"{"outcome":"delivered"}"#)], 0,
         "delivered\n", "held: waiting for an unlock (within ActionHoldSec=)…\n"),
        (["--wait"], [reply(#"{"outcome":"held"}"#, continues: true), reply(#"{"outcome":"expired"}"#)], 1, "",
         "held: waiting for an unlock (within ActionHoldSec=)…\n"
            + "widgetctl: expired: play did not run (no unlock came within ActionHoldSec=, the device locked, or it is no longer shown)\n"),
        (["--wait", "--json"], [reply(#"{"outcome":"held"}"#, continues: true), reply(#"{"outcome":"expired"}"#)], 1,
         #"{"error":"widgetctl.ActionExpired","parameters":{"action":"play","widget":"com.example.media/player"}}"# + "\n",
         "widgetctl: expired: play did not run (no unlock came within ActionHoldSec=, the device locked, or it is no longer shown)\n"),
        ([], [errorReply("io.widgetd.ActionNotAvailable", #"{"action":"play"}"#)], 1, "",
         "widgetctl: no action play is shown on this surface now (widgetctl get WIDGET --surface S lists the actions)\n"),
        ([], [errorReply("io.widgetd.ProviderUnavailable", #"{"provider":"com.example.media"}"#)], 69, "",
         "widgetctl: provider com.example.media is not running: nothing watches its actions (start it, or give its providers.d/ file Unit=)\n"),
    ]

    @Test(arguments: actCases)
    func actPrintsTheOutcomeAndExitsAsOtherCommandsDo(
        options: [String], replies: [String], exitCode: Int32, standardOutput: String, standardError: String
    ) throws {
        let server = try FakeVarlinkServer(replies: replies)
        let result = widgetctl(["act", "com.example.media/player", "play", "--surface", "lock-screen"] + options, socket: server.path)
        #expect(result.exitCode == exitCode)
        #expect(result.standardOutput == standardOutput)
        #expect(result.standardError == standardError)
        let request = options.contains("--wait")
            ? Self.performPlay.replacingOccurrences(of: #""parameters""#, with: #""more":true,"parameters""#) : Self.performPlay
        #expect(server.requests == [request])
    }

    @Test(arguments: ["", "a b", "x/y", String(repeating: "a", count: 65)])
    func actRefusesWhatCannotBeAnActionID(action: String) {
        let result = widgetctl(["act", "com.example.media/player", action])
        #expect(result.exitCode == 64)
        #expect(result.standardError.contains("not an action id"))
    }

    // MARK: actions

    @Test func actionsPrintsOneDeliveredActionPerLine() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(#"{"id":1,"widget":"com.example.media/player","action":"play","isOn":true,"surface":"lockScreen","whileLocked":true}"#, continues: true),
            reply(#"{"id":2,"widget":"com.example.mail/inbox","action":"open","surface":"homeScreen","whileLocked":false}"#),
        ])
        let result = widgetctl(["actions", "--provider", "com.example.media"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            2026-12-01T09:16:38Z  com.example.media/player play → on · lock-screen · while locked
            2026-12-01T09:16:38Z  com.example.mail/inbox open · home-screen

            """)
        #expect(server.requests
            == [#"{"method":"io.widgetd.Provider.WatchActions","more":true,"parameters":{"provider":"com.example.media"}}"#])
    }

    @Test func actionsWithJSONPrintsEachDeliveryStamped() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(#"{"id":7,"widget":"com.example.media/player","action":"play","isOn":false,"surface":"lockScreen","whileLocked":false}"#)
        ])
        let result = widgetctl(["actions", "--json"], socket: server.path)
        #expect(result.standardOutput
            == #"{"action":"play","id":7,"isOn":false,"surface":"lockScreen","timestamp":"2026-12-01T09:16:38Z","whileLocked":false,"widget":"com.example.media/player"}"#
            + "\n")
        #expect(server.requests == [#"{"method":"io.widgetd.Provider.WatchActions","more":true,"parameters":{}}"#])
    }

    @Test func actionsRefusesABadProviderID() {
        let result = widgetctl(["actions", "--provider", "not a provider"])
        #expect(result.exitCode == 64)
    }
}
