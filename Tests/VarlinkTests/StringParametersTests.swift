import Foundation
import Testing
@testable import Varlink

/// `stringParameters` reads what `parameters(_:)` decodes for a struct of strings, with
/// the same answer, value or error, on every shape a client may send.
@Suite struct StringParametersTests {
    private struct Three: Decodable, Equatable { let widget: String; let surface: String; let action: String }

    static let shapes: [String] = [
        #"{"widget":"a/b","surface":"lockScreen","action":"tap"}"#,
        #"{"action":"tap","surface":"lockScreen","widget":"a/b","extra":[1,{"x":null}]}"#,
        #"{"widget":"a\"b\u00e9","surface":"lock\nScreen","action":"☃ 👩‍👩‍👧"}"#,
        #"{"wi\u0064get":"escaped key","surface":"s","action":"a"}"#,
        #"{"widget":"first","widget":"second","surface":"s","action":"a"}"#,
        #"{"surface":"s","action":"a"}"#,
        #"{"widget":"w","action":"a"}"#,
        #"{"widget":"w","surface":"s"}"#,
        #"{"widget":null,"surface":"s","action":"a"}"#,
        #"{"widget":"w","surface":5,"action":"a"}"#,
        #"{"widget":"w","surface":"s","action":["a"]}"#,
        #"{"widget":{"a":1},"surface":7}"#,
        #"{}"#,
        "null",
    ]

    @Test(arguments: shapes)
    func answersAsTheDecoderDoes(_ parameters: String) throws {
        let call = try VarlinkCall(decoding: Array(#"{"method":"io.widgetd.Host.PerformAction","parameters":\#(parameters)}"#.utf8))
        let decoded = Result { () throws(VarlinkError) in try call.parameters(Three.self) }
        let read = Result { () throws(VarlinkError) in
            let strings = try call.stringParameters(["widget", "surface", "action"])
            return Three(widget: strings[0], surface: strings[1], action: strings[2])
        }
        switch (decoded, read) {
        case (.success(let expected), .success(let value)): #expect(value == expected)
        case (.failure(let expected), .failure(let error)): #expect(error == expected)
        default: Issue.record("decoder \(decoded), reader \(read)")
        }
    }

    @Test func absentParametersAreAnEmptyObject() throws {
        let call = try VarlinkCall(decoding: Array(#"{"method":"io.widgetd.Host.GetPresentation"}"#.utf8))
        #expect(throws: VarlinkError.invalidParameter("widget")) { try call.stringParameters(["widget", "surface"]) }
    }
}
