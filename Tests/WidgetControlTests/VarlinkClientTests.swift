import Foundation
import Testing
import WidgetModel
@testable import WidgetControl
import WidgetdWire

@Suite struct VarlinkClientTests {
    @Test func requestsAreNulTerminatedJSONWithSortedKeys() {
        let bytes = VarlinkClient.encodeRequest(
            method: "io.widgetd.Host.GetPresentation",
            parameters: ["widget": .string("a/b"), "surface": .string("alwaysOn")], more: false)
        #expect(bytes.last == 0)
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self)
            == #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"alwaysOn","widget":"a/b"}}"#)
    }

    @Test func streamsAskForMore() {
        let bytes = VarlinkClient.encodeRequest(method: "io.widgetd.Device.Monitor", parameters: [:], more: true)
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self)
            == #"{"method":"io.widgetd.Device.Monitor","more":true,"parameters":{}}"#)
    }

    @Test func secretRequestsEscapeAndKeepPublicParameters() throws {
        let secret = SecretBuffer()
        secret.append(contentsOf: Array("a\"b\\c\u{1}".utf8))
        let request = VarlinkClient.encodeSecretRequest(
            method: "m", parameters: ["x": .number(1)], secrets: [("current", nil), ("new", secret)])
        let bytes = request.withUnsafeBytes { Array($0) }
        #expect(bytes.last == 0)
        let text = String(decoding: bytes.dropLast(), as: UTF8.self)
        #expect(text == #"{"method":"m","parameters":{"x":1,"new":"a\"b\\c\u0001"}}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((object["parameters"] as? [String: Any])?["new"] as? String == "a\"b\\c\u{1}")
    }

    static let malformed: [String] = ["[]", "{\"parameters\":3}", "{\"error\":7}", "nonsense"]

    @Test(arguments: malformed)
    func malformedRepliesAreRejected(text: String) {
        #expect(throws: VarlinkClientError.self) { try VarlinkClient.decodeReply(Array(text.utf8)) }
    }

    @Test func errorRepliesCarryTheirParameters() {
        #expect(throws: VarlinkClientError.remote(name: "io.widgetd.TooLarge", parameters: ["limit": .number(5)])) {
            try VarlinkClient.decodeReply(Array(#"{"error":"io.widgetd.TooLarge","parameters":{"limit":5}}"#.utf8))
        }
    }

    @Test func socketPathTooLongIsRejected() {
        let path = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: VarlinkClientError.invalidPath(path)) { try VarlinkClient(path: path) }
    }

    @Test func streamFollowsRepliesUntilOneDoesNotContinue() throws {
        let server = try FakeVarlinkServer(replies: [
            reply(#"{"n":1}"#, continues: true), reply(#"{"n":2}"#, continues: true), reply(#"{"n":3}"#),
        ])
        let client = try VarlinkClient(path: server.path)
        var seen: [JSONValue] = []
        try client.stream(.monitor) { reply in
            seen.append(reply.parameters["n"] ?? .null)
            return true
        }
        #expect(seen == [.number(1), .number(2), .number(3)])
    }
}
