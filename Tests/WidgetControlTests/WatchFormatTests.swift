import Foundation
import Testing
@testable import WidgetControl

/// `widgetctl watch --format waybar|json`: output a bar or a script takes as it is.
@Suite struct WatchFormatTests {
    /// The keys waybar-custom(5) documents for `"return-type": "json"` (RETURN-TYPE), and
    /// `alt`, which Waybar's custom module reads too (it selects `format-icons`).
    static let waybarKeys: Set<String> = ["text", "tooltip", "class", "alt", "percentage"]

    /// A presentation reply with these fields, in this mode.
    static func presentation(mode: String, fields: String, reasons: String = "[]") -> String {
        #"{"presentation":{"widget":"com.example.weather/forecast","surface":"lockScreen","mode":"\#(mode)","#
            + #""reasons":\#(reasons),"luminanceReduced":false,"stale":false,"entry":{"fields":\#(fields)}}}"#
    }

    static func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func waybarPrintsOneLineOfWaybarsKeysPerPresentation() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), reply(Fixtures.contentPresentation),
        ])
        let result = widgetctl(["watch", "a/b", "--format", "waybar"], socket: server.path)
        #expect(result.exitCode == 0)
        let lines = try Self.objects(result.standardOutput)
        #expect(lines.count == 2)
        for line in lines {
            #expect(Set(line.keys) == ["text", "tooltip", "class", "alt"])
            #expect(Set(line.keys).isSubset(of: Self.waybarKeys))
            #expect(line.values.allSatisfy { $0 is String })
        }
        #expect(lines.map { $0["class"] as? String } == ["redacted", "content"])
        #expect(lines.map { $0["alt"] as? String } == ["redacted", "content"])
        #expect(lines[0]["text"] as? String == "Paris · •••• · ••••")
        #expect(lines[0]["tooltip"] as? String == """
            com.example.weather/forecast · lock-screen
            redacted (privacy)
            city: Paris
            summary: ••••
            temperature: ••••
            valid until 2026-11-29T14:00:00Z
            """)
        // No timestamp line and no screen clearing: every line is Waybar's.
        #expect(!result.standardOutput.contains("2026-12-01T09:16:38Z"))
        #expect(server.requests
            == [#"{"method":"io.widgetd.Host.Watch","more":true,"parameters":{"surface":"homeScreen","widget":"a/b"}}"#])
    }

    /// `class` (and `alt`) is the mode, whichever it is.
    @Test(arguments: ["content", "redacted", "placeholder"])
    func waybarClassIsTheMode(mode: String) throws {
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation(mode: mode, fields: #"{"n":{"value":1}}"#))])
        let line = try #require(try Self.objects(widgetctl(["watch", "a/b", "--format=waybar"], socket: server.path).standardOutput).first)
        #expect(line["class"] as? String == mode)
        #expect(line["alt"] as? String == mode)
    }

    /// Whatever the value sent in a redacted field's place (a placeholder's, or one that
    /// would be secret), the bar shows the same bars, never the value.
    @Test(arguments: [#""12 rue X""#, "null", "42", #"["a","b"]"#, #"{"k":"secret"}"#])
    func aRedactedFieldNeverShowsItsValue(value: String) throws {
        let fields = #"{"home":{"value":\#(value),"redacted":true},"city":{"value":"Lyon"}}"#
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation(mode: "redacted", fields: fields))])
        let result = widgetctl(["watch", "a/b", "--format", "waybar", "--json"], socket: server.path)
        let line = try #require(try Self.objects(result.standardOutput).first)
        // In the provider's order: home, then city.
        #expect(line["text"] as? String == "•••• · Lyon")
        #expect((line["tooltip"] as? String)?.contains("home: ••••") == true)
        for secret in ["12 rue X", "42", "secret", "\"a\""] where value.contains(secret) {
            #expect(!result.standardOutput.contains(secret))
        }
    }

    /// Waybar reads the label as Pango markup: widget data is escaped, so it cannot style
    /// or hide the bar; newlines stay out of the label.
    @Test func waybarEscapesMarkupAndKeepsTheLabelOnOneLine() throws {
        let fields = #"{"a":{"value":"<b>1 & 2</b>"},"b":{"value":"x\ny"}}"#
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation(mode: "content", fields: fields))])
        let line = try #require(try Self.objects(widgetctl(["watch", "a/b", "--format", "waybar"], socket: server.path).standardOutput).first)
        #expect(line["text"] as? String == "&lt;b&gt;1 &amp; 2&lt;/b&gt; · x y")
        #expect((line["tooltip"] as? String)?.contains("a: &lt;b&gt;1 &amp; 2&lt;/b&gt;\nb: x\ny") == true)
    }

    @Test func waybarFieldsChooseAndOrderTheLabel() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.redactedPresentation)])
        let result = widgetctl(
            ["watch", "a/b", "--format", "waybar", "--field", "temperature", "--field", "city", "--field", "absent"],
            socket: server.path)
        #expect(try Self.objects(result.standardOutput).first?["text"] as? String == "•••• · Paris")
        #expect(result.standardError == """
            widgetctl: warning: --field 'absent' is not a field of com.example.weather/forecast (its fields: city, summary, temperature)

            """)
    }

    /// The warning for a field the presentation lacks comes once, not with every line.
    @Test func aMissingFieldIsSaidOnce() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), reply(Fixtures.redactedPresentation, continues: true),
            reply(Fixtures.redactedPresentation),
        ])
        let result = widgetctl(["watch", "a/b", "--format", "waybar", "--field", "tempreature"], socket: server.path)
        #expect(result.standardOutput.split(separator: "\n").count == 3)
        #expect(result.standardError.components(separatedBy: "warning").count == 2, "\(result.standardError)")
    }

    /// Without --field, the label follows the provider's order, not the names'.
    @Test func waybarLabelFollowsTheProvidersOrder() throws {
        let fields = #"{"z":{"value":"last name"},"a":{"value":"first name"}}"#
        let server = try FakeVarlinkServer(replies: [reply(Self.presentation(mode: "content", fields: fields))])
        let line = try #require(try Self.objects(widgetctl(["watch", "a/b", "--format", "waybar"], socket: server.path).standardOutput).first)
        #expect(line["text"] as? String == "last name · first name")
    }

    @Test func fieldWithoutWaybarIsAUsageError() {
        let result = widgetctl(["watch", "a/b", "--field", "city"])
        #expect(result.exitCode == 64)
        #expect(result.standardError.contains("--field is only for --format waybar"))
    }

    @Test func jsonPrintsEachPresentationAsSentOnePerLine() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(Fixtures.redactedPresentation, continues: true), reply(Fixtures.contentPresentation),
        ])
        let result = widgetctl(["watch", "a/b", "--format", "json"], socket: server.path)
        #expect(result.exitCode == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        // The content presentation as sent: members in their order, its number digit for digit.
        #expect(lines[1] == #"{"widget":"a/b","surface":"alwaysOn","mode":"content","reasons":["invalidated"],"#
            + #""luminanceReduced":true,"stale":true,"entry":{"fields":{"n":{"value":21.0}}}}"#)
        #expect(try Self.objects(result.standardOutput).allSatisfy { $0["timestamp"] == nil && $0["mode"] != nil })
    }

    @Test func textStaysTheDefault() throws {
        let server = try FakeVarlinkServer(replies: [reply(Fixtures.contentPresentation)])
        let plain = widgetctl(["watch", "a/b"], socket: server.path).standardOutput
        let server2 = try FakeVarlinkServer(replies: [reply(Fixtures.contentPresentation)])
        #expect(widgetctl(["watch", "a/b", "--format", "text"], socket: server2.path).standardOutput == plain)
        #expect(plain.hasPrefix("2026-12-01T09:16:38Z\n┌─"))
    }
}
