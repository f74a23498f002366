import Foundation
import Testing
@testable import WidgetControl

/// Previews show what a lock screen shows: fields in the provider's order (every host
/// draws them so), boxes that fit the terminal, dates in local time (UTC in `--json`),
/// and `call`'s reply as sent.
@Suite struct PreviewOrderTests {
    /// Fields not in name order: temperature, city, a_note.
    static let presentation = #"{"presentation":{"widget":"a/b","surface":"homeScreen","mode":"content","#
        + #""reasons":[],"luminanceReduced":false,"stale":false,"entry":{"date":"2026-11-29T13:00:00Z","fields":{"#
        + #""temperature":{"value":21},"city":{"value":"Paris"},"a_note":{"value":"x"}}},"#
        + #""validUntil":"2026-11-29T14:00:00Z"}}"#

    static let timeline = #"{"family":"systemSmall","entries":[{"date":"2026-11-29T13:00:00Z","#
        + #""fields":{"temperature":{"value":21},"city":{"value":"Paris"},"a_note":{"value":"x"}}}],"#
        + #""policy":{"kind":"after","date":"2026-11-29T15:30:00Z"},"generation":4}"#

    /// The lines holding a field, in the order printed.
    static func fieldLines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            ["temperature", "city", "a_note"].contains { line.contains($0) }
        }
    }

    @Test func getDrawsTheFieldsInTheProvidersOrder() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation)])
        let result = widgetctl(["get", "a/b"], socket: server.path)
        let lines = Self.fieldLines(result.standardOutput)
        #expect(lines.count == 3)
        #expect(lines[0].contains("temperature") && lines[1].contains("city") && lines[2].contains("a_note"), "\(lines)")
    }

    @Test func getJSONKeepsTheProvidersOrderAndUTC() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation)])
        let result = widgetctl(["--json", "get", "a/b"], socket: server.path, utcOffset: 3600)
        #expect(result.standardOutput.contains(#""fields":{"temperature":{"value":21},"city":{"value":"Paris"},"a_note":{"value":"x"}}"#))
        #expect(result.standardOutput.contains(#""date":"2026-11-29T13:00:00Z""#))
    }

    @Test func getShowsLocalDates() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation)])
        let result = widgetctl(["get", "a/b"], socket: server.path, utcOffset: 3600)
        #expect(result.standardOutput.contains("entry 2026-11-29T14:00:00+01:00 · valid until 2026-11-29T15:00:00+01:00"))
        let westServer = try FakeVarlinkServer(replies: [reply(Self.presentation)])
        let west = widgetctl(["get", "a/b"], socket: westServer.path, utcOffset: -5 * 3600 - 1800)
        #expect(west.standardOutput.contains("entry 2026-11-29T07:30:00-05:30"))
    }

    @Test func timelineListsTheProvidersOrderInLocalTime() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.timeline)])
        let result = widgetctl(["timeline", "a/b"], socket: server.path, utcOffset: 3600)
        #expect(result.standardOutput == """
            a/b: family systemSmall, generation 4, reload after 2026-11-29T16:30:00+01:00, 1 entries
            2026-11-29T14:00:00+01:00
              temperature  21
              city         Paris
              a_note       x

            """)
    }

    @Test func callPrintsTheReplyAsSentAndSendsTheParametersAsWritten() throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation)])
        let result = widgetctl(
            ["call", "io.widgetd.Provider.PutTimeline", #"{"widget":"a/b","entries":[{"date":"2026-01-01T00:00:00Z","fields":{"z":{"value":1},"a":{"value":2.50}}}]}"#],
            socket: server.path)
        #expect(result.standardOutput == Self.presentation + "\n")
        #expect(server.requests == [
            #"{"method":"io.widgetd.Provider.PutTimeline","parameters":{"widget":"a/b","entries":[{"date":"2026-01-01T00:00:00Z","fields":{"z":{"value":1},"a":{"value":2.50}}}]}}"#,
        ])
    }

    /// Streams stamp their lines in local time; `--json` stamps in UTC and keeps the
    /// presentation as sent (fields in the provider's order).
    @Test func streamsStampLinesInLocalTimeAndJSONInUTC() throws {
        let event = #"{"event":{"kind":"state","state":"locked","passcodeSet":true,"settings":\#(Fixtures.settings)}}"#
        let monitor = try FakeVarlinkServer(replies: [reply(event)])
        #expect(widgetctl(["monitor"], socket: monitor.path, utcOffset: 3600).standardOutput
            == "2026-12-01T10:16:38+01:00  state: locked (passcode set)\n")
        let watch = try FakeVarlinkServer(replies: [reply(Self.presentation)])
        let json = widgetctl(["watch", "a/b", "--json"], socket: watch.path, utcOffset: 3600).standardOutput
        #expect(json.hasPrefix(#"{"presentation":{"widget":"a/b","#))
        #expect(json.contains(#""fields":{"temperature":{"value":21},"city":{"value":"Paris"},"a_note":{"value":"x"}}"#))
        #expect(json.hasSuffix(#","timestamp":"2026-12-01T09:16:38Z"}"# + "\n"))
    }

    /// A placeholder's reason is one long line: at 80 columns (and at 40) every line of the
    /// box fits, and the box stays a box.
    @Test(arguments: [80, 40])
    func aPreviewFitsTheTerminal(columns: Int) throws {
        let placeholder = #"{"presentation":{"widget":"com.example.weather/forecast#lock-1","surface":"lockScreen","#
            + #""mode":"placeholder","reasons":["placeholder"],"luminanceReduced":false,"stale":false,"#
            + #""entry":{"fields":{"summary":{"value":"A long placeholder value that goes on and on past sixty characters","redacted":true}}}}}"#
        let server = try FakeVarlinkServer { request in
            if request.contains("GetPresentation") { return [reply(placeholder)] }
            if request.contains("GetStatus") { return [reply(statusWithoutWait)] }
            return [errorReply("io.widgetd.PermissionDenied")]
        }
        let result = widgetctl(["get", "com.example.weather/forecast#lock-1"], socket: server.path, columns: columns)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count > 4)
        for line in lines { #expect(line.count <= columns, "\(line.count) > \(columns): \(line)") }
        let widths = Set(lines.map(\.count))
        #expect(widths.count == 1, "every line of the box is as wide: \(widths)")
        #expect(result.standardOutput.contains("locked"))
    }
}
