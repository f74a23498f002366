import Foundation
import SecureMemory
import Testing
@testable import WidgetDaemon

/// Passcodes are read from the message straight into secure memory, and read exactly as
/// a JSON decoder would read them.
@Suite struct PasscodeParametersTests {
    private func read(_ json: String, _ members: [String] = ["current", "new"]) throws -> PasscodeParameters {
        var bytes = Array(json.utf8)
        return try bytes.withUnsafeMutableBytes { try PasscodeParameters(UnsafeRawBufferPointer($0), members: members) }
    }

    private func text(_ value: SecureBytes?) -> String? {
        value.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
    }

    @Test(arguments: [
        #""1234""#, #""""#, #""a\"b\\c\/d""#, #""\b\f\n\r\t""#, #""\u00e9t\u00C9""#, #""caf\u00e9 \u20ac""#,
        #""\ud83d\ude00 smile""#, #""plain ünïcödé 😀""#, #""\u0000nul""#,
    ])
    func aPasscodeReadsAsAJSONDecoderReadsIt(literal: String) throws {
        let expected = try JSONDecoder().decode(String.self, from: Data(literal.utf8))
        let parameters = try read(#"{"new":\#(literal)}"#)
        #expect(text(parameters.value("new")) == expected)
        #expect(parameters.value("new")?.count == expected.utf8.count)
    }

    @Test func absentAndNullAreTheSameAndUnknownMembersAreIgnored() throws {
        let parameters = try read(#"{"current":null,"other":{"x":[1,"y"]},"new":"5678"}"#)
        #expect(parameters.value("current") == nil)
        #expect(text(parameters.value("new")) == "5678")
        #expect(try read("{}").values.isEmpty)
        let none = try PasscodeParameters(nil, members: ["passcode"])
        #expect(none.values.isEmpty)
    }

    @Test(arguments: [
        (#"{"new":1234}"#, "new"), (#"{"current":["1"]}"#, "current"), (#"{"new":"1","new":"2"}"#, "new"),
        (#"{"new":null,"new":"2"}"#, "new"), (#"{"current":true,"new":5}"#, "current"),
    ])
    func aWrongOrRepeatedMemberIsNamed(json: String, member: String) {
        #expect(throws: ServiceError.invalidParameter(member)) { try read(json) }
    }

    @Test func aPasscodeIsNeverInTheErrorOfAMalformedObject() {
        #expect(throws: ServiceError.invalidParameter("")) { try read(#"["secret-1234"]"#) }
    }

    @Test func randomStringsReadAsAJSONDecoderReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "€", "😀", " "]
        for _ in 0..<500 {
            let original = String((0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement()! })
            let literal = String(decoding: try JSONEncoder().encode(original), as: UTF8.self)
            let parameters = try read(#"{"passcode":\#(literal)}"#, ["passcode"])
            #expect(text(parameters.value("passcode")) == original, "\(literal)")
        }
    }
}
