import Testing
@testable import WidgetControl

@Suite struct PreviewTests {
    @Test func redactedFieldsAreBarsShapedLikeThePlaceholderValue() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.redactedPresentation)])
        let result = widgetctl(["get", "com.example.weather/forecast", "--surface", "lockScreen"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == """
            ┌─ com.example.weather/forecast · lock-screen ──────────────────┐
            │ redacted (privacy)                                            │
            ├───────────────────────────────────────────────────────────────┤
            │ city         Paris                                            │
            │ summary      ██████ █████                                     │
            │ temperature  ████                                             │
            ├───────────────────────────────────────────────────────────────┤
            │ entry 2026-11-29T13:00:00Z · valid until 2026-11-29T14:00:00Z │
            └───────────────────────────────────────────────────────────────┘

            """)
        #expect(!result.standardOutput.contains("Cloudy"))
        #expect(server.requests
            == [#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"lockScreen","widget":"com.example.weather/forecast"}}"#])
    }

    @Test func headerShowsModeReasonsAndFlags() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.contentPresentation)])
        let result = widgetctl(["get", "a/b", "--surface=alwaysOn"], socket: server.path)
        #expect(result.standardOutput.contains("│ content (invalidated) · stale · luminance reduced │"))
        // The value as the daemon sent it (`21.0`), digit for digit (issue 13).
        #expect(result.standardOutput.contains("│ n  21.0 "))
    }

    /// Whether output is coloured: (stdout is a terminal, environment, colour expected).
    static let colorCases: [(Bool, [String: String], Bool)] = [
        (true, [:], true),
        (false, [:], false),
        (true, ["NO_COLOR": "1"], false),
        (true, ["NO_COLOR": ""], true),
        (true, ["TERM": "dumb"], false),
    ]

    @Test(arguments: colorCases)
    func colourOnlyOnATerminalWithoutNO_COLOR(isTerminal: Bool, environment: [String: String], colored: Bool) throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.redactedPresentation)])
        let result = widgetctl(["get", "a/b"], socket: server.path, environment: environment, isTerminal: isTerminal)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("\u{1B}[") == colored)
    }

    @Test func widgetDataCannotSendTerminalEscapes() {
        let text = TerminalText.sanitize("a\u{1B}[2Jb\u{7}c\u{202E}d\ne")
        #expect(text == "a\u{FFFD}[2Jb\u{FFFD}c\u{FFFD}d\ne")
    }

    @Test(arguments: [("Paris", "█████"), ("12 °C", "██ ██"), ("a\nbc", "█\n██")])
    func barsKeepTheValuesShape(value: String, bars: String) {
        #expect(TerminalText.bars(shapedLike: value) == bars)
    }

    @Test(arguments: [(true, true), (false, false)])
    func watchRedrawsInPlaceOnlyAtATerminal(isTerminal: Bool, redraws: Bool) throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), reply(Fixtures.contentPresentation),
        ])
        let result = widgetctl(["watch", "a/b"], socket: server.path, environment: ["NO_COLOR": "1"], isTerminal: isTerminal)
        #expect(result.standardOutput.components(separatedBy: "\u{1B}[H\u{1B}[2J").count == (redraws ? 3 : 1))
    }

    @Test func watchDrawsEveryPresentation() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), reply(Fixtures.contentPresentation),
        ])
        let result = widgetctl(["watch", "a/b"], socket: server.path)
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.components(separatedBy: "┌─").count == 3)
        #expect(server.requests
            == [#"{"method":"io.widgetd.Host.Watch","more":true,"parameters":{"surface":"homeScreen","widget":"a/b"}}"#])
    }
}
