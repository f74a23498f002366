import Foundation
import Testing
import Varlink
import WidgetModel
import WidgetdWire
@testable import WidgetdClient

/// The one socket and request coding that the library and widgetctl share.
@Suite struct ClientSocketTests {
    @Test func requestsAreNulTerminatedJSONWithSortedKeys() {
        let bytes = WireCoding.call(
            "io.widgetd.Host.GetPresentation", values: ["widget": .string("a/b"), "surface": .string("alwaysOn")])
        #expect(bytes.last == 0)
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self)
            == #"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"alwaysOn","widget":"a/b"}}"#)
    }

    @Test func streamsAskForMore() {
        let bytes = WireCoding.call("io.widgetd.Device.Monitor", values: [:], more: true)
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self)
            == #"{"method":"io.widgetd.Device.Monitor","more":true,"parameters":{}}"#)
    }

    @Test func membersGivenAsTextAreSentByteForByte() {
        let bytes = WireCoding.call(
            "io.widgetd.Provider.PutTimeline", values: ["widget": .string("a/b")], texts: ["entries": Array(#"[{"z":1,"a":2}]"#.utf8)])
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self)
            == #"{"method":"io.widgetd.Provider.PutTimeline","parameters":{"entries":[{"z":1,"a":2}],"widget":"a/b"}}"#)
    }

    @Test func aSecretRequestIsEscapedAndParsesBack() throws {
        let secret = ZeroingBuffer()
        secret.append(contentsOf: Array("a\"b\\c\u{1}".utf8))
        let request = SecretCall.encode("m", [("current", nil), ("new", secret)])
        let bytes = request.withUnsafeBytes { Array($0) }
        #expect(bytes.last == 0)
        let text = String(decoding: bytes.dropLast(), as: UTF8.self)
        #expect(text == #"{"method":"m","parameters":{"new":"a\"b\\c\u0001"}}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((object["parameters"] as? [String: Any])?["new"] as? String == "a\"b\\c\u{1}")
    }

    static let malformed: [(String, String)] = [
        ("[]", "reply is not a JSON object"), ("nonsense", "reply is not a JSON object"),
        ("{\"parameters\":3}", "reply parameters has the wrong type"), ("{\"error\":7}", "reply error has the wrong type"),
    ]

    @Test(arguments: malformed)
    func malformedRepliesAreRejected(text: String, reason: String) {
        #expect(throws: WidgetdError.malformedReply(reason)) { try ClientSocket.decodeReply(Array(text.utf8)) }
    }

    @Test func errorRepliesAreReturnedWithTheirParameters() throws {
        let reply = try ClientSocket.decodeReply(Array(#"{"error":"io.widgetd.TooLarge","parameters":{"limit":5}}"#.utf8))
        #expect(reply.error == "io.widgetd.TooLarge")
        #expect(try WireCoding.parameters(of: reply) == ["limit": .number(5)])
    }

    @Test func socketPathTooLongIsRejected() {
        let path = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: WidgetdError.invalidSocketPath(path)) { try ClientSocket(path: path) }
    }
}

@Suite struct ZeroingBufferTests {
    @Test func wipeZeroesAndForgetsTheBytes() {
        let secret = ZeroingBuffer(capacity: 8)
        secret.append(contentsOf: Array("abc".utf8))
        secret.wipe()
        #expect(secret.count == 0)
        secret.append(0)
        #expect(secret.withUnsafeBytes { Array($0) } == [0])
    }

    @Test func bufferNeverGrowsPastItsCapacity() {
        let secret = ZeroingBuffer(capacity: 4)
        #expect(secret.append(contentsOf: Array("abcd".utf8)))
        #expect(!secret.append(UInt8(ascii: "e")))
        #expect(!secret.append(contentsOf: [1, 2]))
        #expect(secret.count == 4)
        let escaped = ZeroingBuffer(capacity: 5)
        // `\u0001` is six bytes: an escape that does not fit is reported, not cut short silently.
        #expect(!Array("\u{1}".utf8).withUnsafeBytes { escaped.appendJSONStringContents($0) })
    }

    @Test func comparisonNeedsSameLengthAndBytes() {
        let a = ZeroingBuffer(capacity: 8), b = ZeroingBuffer(capacity: 8), c = ZeroingBuffer(capacity: 8)
        a.append(contentsOf: Array("abc".utf8))
        b.append(contentsOf: Array("abc".utf8))
        c.append(contentsOf: Array("abd".utf8))
        #expect(a.hasSameBytes(as: b))
        #expect(!a.hasSameBytes(as: c))
        c.removeLast(1)
        #expect(!a.hasSameBytes(as: c))
    }
}
