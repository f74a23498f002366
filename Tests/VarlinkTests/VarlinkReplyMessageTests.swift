import Testing
@testable import Varlink

@Suite struct VarlinkReplyMessageTests {
    private func decode(_ text: String) throws(VarlinkReplyDecodingError) -> VarlinkReplyMessage {
        try VarlinkReplyMessage(decoding: Array(text.utf8))
    }

    private func parameters(of reply: VarlinkReplyMessage) -> String {
        reply.withParameterBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func replyCarriesItsParametersInPlaceAndWhetherMoreFollow() throws {
        let reply = try decode(#"{"continues":true,"parameters":{"n":1.50,"s":"x"}}"#)
        #expect(reply.error == nil && reply.continues)
        #expect(parameters(of: reply) == #"{"n":1.50,"s":"x"}"#)
    }

    @Test func errorReplyCarriesItsNameAndParameters() throws {
        let reply = try decode(#"{"error":"io.widgetd.TooLarge","parameters":{"limit":5}}"#)
        #expect(reply.error == "io.widgetd.TooLarge" && !reply.continues)
        #expect(parameters(of: reply) == #"{"limit":5}"#)
    }

    @Test func missingOrNullParametersReadAsTheEmptyObject() throws {
        #expect(parameters(of: try decode("{}")) == "{}")
        #expect(parameters(of: try decode(#"{"parameters":null,"unknown":[1]}"#)) == "{}")
    }

    @Test(arguments: [
        ("[]", VarlinkReplyDecodingError.notAJSONObject), ("nonsense", .notAJSONObject), (#"{"a":1} x"#, .notAJSONObject),
        (#"{"parameters":3}"#, .invalidMember("parameters")), (#"{"error":7}"#, .invalidMember("error")),
        (#"{"continues":"yes"}"#, .invalidMember("continues")),
    ])
    func malformedRepliesAreRefused(text: String, expected: VarlinkReplyDecodingError) {
        #expect(throws: expected) { try decode(text) }
    }

    @Test func callsAreNulTerminatedWithMoreBeforeParameters() {
        let bytes = VarlinkCallMessage.encode(method: "io.widgetd.Device.Monitor", encodedParameters: Array("{}".utf8), more: true)
        #expect(bytes.last == 0)
        #expect(String(decoding: bytes.dropLast(), as: UTF8.self) == #"{"method":"io.widgetd.Device.Monitor","more":true,"parameters":{}}"#)
        #expect(VarlinkCallMessage.head(method: "a\"b") == Array(#"{"method":"a\"b","parameters":"#.utf8))
    }
}
