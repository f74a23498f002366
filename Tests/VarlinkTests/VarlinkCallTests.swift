import Foundation
import Testing
@testable import Varlink

@Suite struct VarlinkCallTests {
    private func call(_ text: String) throws(VarlinkCallDecodingError) -> VarlinkCall {
        try VarlinkCall(decoding: Array(text.utf8))
    }

    private struct Widget: Decodable, Equatable { let widget: String; let surface: String? }
    private struct Entries: Decodable { struct Entry: Decodable { let date: String }; let entries: [Entry] }
    private struct Empty: Decodable {}

    @Test func decodesMethodAndFlags() throws {
        let decoded = try call(#"{"method":"io.widgetd.Host.Watch","more":true,"parameters":{"widget":"a/b"}}"#)
        #expect(decoded.method == "io.widgetd.Host.Watch")
        #expect(decoded.interface == "io.widgetd.Host")
        #expect(decoded.member == "Watch")
        #expect(decoded.more && !decoded.oneway && !decoded.upgrade)
        #expect(try decoded.parameters(Widget.self) == Widget(widget: "a/b", surface: nil))
    }

    @Test func decodesOnewayAndUpgrade() throws {
        let decoded = try call(#"{"method":"a.b.C","oneway":true,"upgrade":true}"#)
        #expect(decoded.oneway && decoded.upgrade && !decoded.more)
    }

    @Test func missingParametersDecodeAsAnEmptyObject() throws {
        _ = try call(#"{"method":"io.widgetd.Device.Lock"}"#).parameters(Empty.self)
        _ = try call(#"{"method":"io.widgetd.Device.Lock","parameters":null}"#).parameters(Empty.self)
    }

    @Test func missingParameterIsInvalidParameterNamingIt() throws {
        let decoded = try call(#"{"method":"io.widgetd.Host.GetPresentation"}"#)
        #expect(throws: VarlinkError.invalidParameter("widget")) { try decoded.parameters(Widget.self) }
    }

    @Test func wrongTypeIsInvalidParameterNamingItsPath() throws {
        let decoded = try call(#"{"method":"io.widgetd.Provider.PutTimeline","parameters":{"entries":[{"date":"x"},{"date":3}]}}"#)
        #expect(throws: VarlinkError.invalidParameter("entries[1].date")) { try decoded.parameters(Entries.self) }
        let wrongTop = try call(#"{"method":"a.B","parameters":{"widget":true}}"#)
        #expect(throws: VarlinkError.invalidParameter("widget")) { try wrongTop.parameters(Widget.self) }
    }

    @Test(arguments: ["", "not json", "[1,2]", "\"text\"", "42", "{\"method\":"])
    func nonObjectsAreNotCalls(text: String) {
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) { try call(text) }
    }

    @Test(arguments: [
        (#"{}"#, "method"),
        (#"{"method":7}"#, "method"),
        (#"{"method":"NoInterface"}"#, "method"),
        (#"{"method":"trailing.dot."}"#, "method"),
        (#"{"method":"a.B","more":"yes"}"#, "more"),
        (#"{"method":"a.B","oneway":1}"#, "oneway"),
        (#"{"method":"a.B","parameters":[1]}"#, "parameters"),
    ])
    func invalidEnvelopesAreAnsweredWithInvalidParameter(text: String, parameter: String) {
        #expect(throws: VarlinkCallDecodingError.invalidCall(.invalidParameter(parameter))) { try call(text) }
    }

    /// Stricter than `JSONDecoder`: a member given twice is refused, not silently one of them.
    @Test(arguments: [
        (#"{"method":"a.B","method":"a.C"}"#, "method"),
        (#"{"method":"a.B","parameters":{},"parameters":{"widget":"x"}}"#, "parameters"),
        (#"{"method":"a.B","more":true,"more":false}"#, "more"),
        // The members are judged in a fixed order, whatever order they come in.
        (#"{"parameters":1,"more":2,"method":"a.B"}"#, "more"),
    ])
    func repeatedOrWrongMembersAreInvalid(text: String, parameter: String) {
        #expect(throws: VarlinkCallDecodingError.invalidCall(.invalidParameter(parameter))) { try call(text) }
    }

    /// The whole message is checked as JSON text before any member is judged.
    @Test(arguments: [
        #"{"method":"a.B",}"#,
        #"{"method":7,"parameters":{"x":[1,]}}"#,
        #"{"method":"a.B","parameters":{"x":"\ud800"}}"#,
        #"{"method":"a.B"} {}"#,
        #"{"method":"a.B","x":01}"#,
    ])
    func textThatIsNotJSONIsNotACall(text: String) {
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) { try call(text) }
    }

    @Test func invalidUTF8IsNotACall() {
        var bytes = Array(#"{"method":"a.B","parameters":{"x":"ab"}}"#.utf8)
        bytes[bytes.count - 4] = 0xC3
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) { try VarlinkCall(decoding: bytes) }
    }

    /// The event loop decodes a message viewed in place in its buffer, or adopts its own
    /// copy of it: the same call, or the same refusal, as from an array of the same bytes.
    @Test(arguments: [
        #"{"method":"io.widgetd.Host.Watch","more":true,"parameters":{"widget":"a/b"}}"#,
        #"{"method":"a.b.C","oneway":true,"upgrade":true,"extra":[1,{"x":null}]}"#,
        #"{"method":"a.B","parameters":null}"#,
        #"{"method":"a.B","method":"a.C"}"#,
        #"{"parameters":1,"more":2,"method":"a.B"}"#,
        #"{"method":"a.B","oneway":1,"upgrade":"x"}"#,
        #"{"method":"aB"}"#,
        #"{"more":true}"#,
        #"{"method":7,"parameters":{"x":[1,]}}"#,
        #"{"method":"a.B","parameters":{"x":"\ud800"}}"#,
        #"[1]"#,
    ])
    func decodingInPlaceIsDecodingAnArray(text: String) {
        let fromArray = Result { () throws(VarlinkCallDecodingError) in try call(text) }
        let inPlace = Array(text.utf8).withUnsafeBytes { bytes in
            Result { () throws(VarlinkCallDecodingError) in try VarlinkCall(decoding: bytes) }
        }
        let adopted = Array(text.utf8).withUnsafeBytes { bytes in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
            copy.copyMemory(from: bytes)
            return Result { () throws(VarlinkCallDecodingError) in
                var call = try VarlinkCall(adoptingDeferringParameters: copy)
                try call.checkParameters()
                return call
            }
        }
        switch (adopted, fromArray) {
        case (.success(let decoded), .success(let expected)):
            #expect(decoded.method == expected.method && decoded.more == expected.more && decoded.oneway == expected.oneway)
            #expect(decoded.withParameterBytes { $0.map { Array($0) } } == expected.withParameterBytes { $0.map { Array($0) } })
        case (.failure(let error), .failure(let expected)):
            #expect(error == expected)
        default:
            Issue.record("adopted: \(adopted), from an array: \(fromArray)")
        }
        switch (fromArray, inPlace) {
        case (.success(let expected), .success(let decoded)):
            #expect(decoded.method == expected.method && decoded.interface == expected.interface && decoded.member == expected.member)
            #expect(decoded.more == expected.more && decoded.oneway == expected.oneway && decoded.upgrade == expected.upgrade)
            let parameters = decoded.withParameterBytes { $0.map { Array($0) } }
            #expect(parameters == expected.withParameterBytes { $0.map { Array($0) } })
        case (.failure(let expected), .failure(let error)):
            #expect(error == expected)
        default:
            Issue.record("in place: \(inPlace), from an array: \(fromArray)")
        }
    }

    @Test func parametersAreLocatedInPlace() throws {
        let decoded = try call(#" { "more" : false , "parameters" : {"widget": "a/b"} , "method":"a.B" } "#)
        let text = decoded.withParameterBytes { bytes in bytes.map { String(decoding: $0, as: UTF8.self) } }
        #expect(text == #"{"widget": "a/b"}"#)
        #expect(try call(#"{"method":"a.B","parameters":null}"#).withParameterBytes { $0 == nil })
        #expect(try call(#"{"method":"a.B"}"#).withParameterBytes { $0 == nil })
    }
}

@Suite struct VarlinkReplyTests {
    private struct Generation: Encodable { let generation: Int }
    private struct Path: Encodable { let url: String }

    private func text(_ bytes: [UInt8]) -> String {
        #expect(bytes.last == 0)
        return String(decoding: bytes.dropLast(), as: UTF8.self)
    }

    @Test func encodesAFinalReply() {
        #expect(text(VarlinkReply.encode(parameters: Generation(generation: 3))) == #"{"parameters":{"generation":3}}"#)
    }

    @Test func encodesAStreamReplyWithContinues() {
        #expect(text(VarlinkReply.encode(parameters: Generation(generation: 1), continues: true))
            == #"{"continues":true,"parameters":{"generation":1}}"#)
    }

    @Test func doesNotEscapeSlashesAndSortsKeys() {
        #expect(text(VarlinkReply.encode(parameters: ["b": "a/b", "a": "c"])) == #"{"parameters":{"a":"c","b":"a/b"}}"#)
    }

    @Test func repliesAreValidJSONObjects() throws {
        let reply = VarlinkReply.encode(parameters: Path(url: "x\"y\u{1}"))
        let object = try JSONSerialization.jsonObject(with: Data(reply.dropLast())) as? [String: Any]
        #expect((object?["parameters"] as? [String: Any])?["url"] as? String == "x\"y\u{1}")
    }

    @Test(arguments: [
        (VarlinkError.interfaceNotFound("x.Y"), #"{"error":"org.varlink.service.InterfaceNotFound","parameters":{"interface":"x.Y"}}"#),
        (VarlinkError.methodNotFound("x.Y.Z"), #"{"error":"org.varlink.service.MethodNotFound","parameters":{"method":"x.Y.Z"}}"#),
        (VarlinkError.methodNotImplemented("x.Y.Z"), #"{"error":"org.varlink.service.MethodNotImplemented","parameters":{"method":"x.Y.Z"}}"#),
        (VarlinkError.invalidParameter("widget"), #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"widget"}}"#),
        (VarlinkError.permissionDenied, #"{"error":"org.varlink.service.PermissionDenied","parameters":{}}"#),
        (VarlinkError.expectedMore, #"{"error":"org.varlink.service.ExpectedMore","parameters":{}}"#),
    ])
    func encodesTheStandardErrors(error: VarlinkError, expected: String) {
        #expect(text(VarlinkReply.encode(error: error)) == expected)
    }

    @Test func encodesAnErrorWithTypedParameters() {
        struct WrongPasscode: Encodable { let failedAttempts: Int; let retryAfter: Double? }
        let error = VarlinkError(name: "io.widgetd.WrongPasscode", parameters: WrongPasscode(failedAttempts: 5, retryAfter: 60))
        #expect(text(VarlinkReply.encode(error: error))
            == #"{"error":"io.widgetd.WrongPasscode","parameters":{"failedAttempts":5,"retryAfter":60}}"#)
    }
}
