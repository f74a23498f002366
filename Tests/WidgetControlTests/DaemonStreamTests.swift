import Testing
import WidgetModel
import WidgetdClient
import WidgetdWire
@testable import WidgetControl

/// widgetctl follows a `more` call on the client library's socket.
@Suite struct DaemonStreamTests {
    @Test func streamFollowsRepliesUntilOneDoesNotContinue() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(#"{"n":1}"#, continues: true), reply(#"{"n":2}"#, continues: true), reply(#"{"n":3}"#),
        ])
        let socket = try ClientSocket(path: server.path)
        var seen: [JSONValue] = []
        try socket.follow(WireCoding.call(WidgetdMethod.monitor.fullName, values: [:], more: true)) { reply in
            seen.append(reply.parameters["n"] ?? .null)
            return true
        }
        #expect(seen == [.number(1), .number(2), .number(3)])
        #expect(server.requests == [#"{"method":"io.widgetd.Device.Monitor","more":true,"parameters":{}}"#])
    }

    @Test func anErrorReplyEndsAStreamWithItsMessage() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(#"{"n":1}"#, continues: true), errorReply("io.widgetd.WidgetNotFound", #"{"widget":"a/b"}"#),
        ])
        let result = widgetctl(["call", "io.widgetd.Device.Monitor", "--more"], socket: server.path)
        #expect(result.standardOutput == "{\"n\":1}\n")
        #expect(result.standardError == "widgetctl: no widget a/b (widgetctl list shows the stored widgets)\n")
        #expect(result.exitCode == 1)
    }
}
