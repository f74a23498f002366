import Testing
import StrictJSON
@testable import Varlink

/// The event loop's scan skips a `parameters` object and has it checked by the walk that
/// decodes it (or by `checkParameters`): whatever the walk, a message is refused as not
/// JSON exactly when it is not JSON text, and a call is decoded exactly as the scan of
/// the whole message decodes it.
@Suite struct DeferredParametersTests {
    /// How the handler treats the parameters once the envelope is scanned.
    enum Walk: CaseIterable, Sendable {
        /// `checkParameters` alone (a method that decodes them later, or ignores them).
        case check
        /// A walk that skips the whole object with the checking reader.
        case skipAll
        /// A walk that reads the first member and stops (completed by `checkParameters`).
        case stopEarly
        /// A walk that reads nothing.
        case nothing
    }

    /// The outcome compared between the paths: the call's envelope, or the refusal.
    private struct Outcome: Equatable {
        var method = "", more = false, oneway = false, upgrade = false
        var parameters: [UInt8]?
        var error: VarlinkCallDecodingError?
    }

    private static func outcome(_ decode: () throws -> VarlinkCall) -> Outcome {
        do {
            let call = try decode()
            return Outcome(
                method: call.method, more: call.more, oneway: call.oneway, upgrade: call.upgrade,
                parameters: call.withParameterBytes { $0.map { Array($0) } })
        } catch let error as VarlinkCallDecodingError {
            return Outcome(error: error)
        } catch {
            Issue.record("unexpected \(error)")
            return Outcome()
        }
    }

    private static func deferred(_ bytes: [UInt8], _ walk: Walk) -> Outcome {
        outcome {
            try bytes.withUnsafeBytes { buffer in
                var call = try VarlinkCall(decodingDeferringParameters: buffer)
                switch walk {
                case .check: try call.checkParameters()
                case .skipAll: try call.readParameters { (reader) throws(JSONReadError) in try reader?.skipValue() }
                case .stopEarly:
                    try call.readParameters { (reader) throws(JSONReadError) in
                        guard var object = reader else { return }
                        // Reads the first member's key, then stops.
                        _ = try? object.readObject { (inner, _) throws(JSONReadError) in
                            throw JSONReadError(.mismatch, at: inner.offset, "stop")
                        }
                    }
                case .nothing: try call.readParameters { (_: inout JSONReader?) throws(JSONReadError) in 0 }
                }
                #expect(call.parametersAreChecked)
                return call
            }
        }
    }

    /// Messages whose fault (or none) lies in the parameters, in the envelope around
    /// them, or in both.
    static let messages: [String] = [
        #"{"method":"a.B","parameters":{"widget":"a/b","entries":[{"x":[1,2.5e3,-0,true,null]}]}}"#,
        #"{"parameters":{"widget":"a/b"},"method":"a.B","more":true}"#,
        #"{"method":"a.B","parameters":{}}"#,
        #"{"method":"a.B","parameters":{"s":"\"}\\","t":"]"}}"#,
        #"{"method":"a.B","parameters":{"x":"\ud83d\ude00"}}"#,
        #"{"method":"a.B","parameters":null}"#,
        #"{"method":"a.B"}"#,
        // Not JSON inside the parameters.
        #"{"method":"a.B","parameters":{"x":[1,]}}"#,
        #"{"method":"a.B","parameters":{"x":"\ud800"}}"#,
        #"{"method":"a.B","parameters":{"x":"\q"}}"#,
        #"{"method":"a.B","parameters":{"x":01}}"#,
        #"{"method":"a.B","parameters":{"x":1.}}"#,
        #"{"method":"a.B","parameters":{"x":tru}}"#,
        #"{"method":"a.B","parameters":{"x" 1}}"#,
        #"{"method":"a.B","parameters":{"x":1,}}"#,
        #"{"method":"a.B","parameters":{"x":1]}"#,
        #"{"method":"a.B","parameters":{"x":[1}]}"#,
        #"{"method":"a.B","parameters":{1:2}}"#,
        #"{"method":"a.B","parameters":{"x":"a"#,
        #"{"method":"a.B","parameters":{"x":"a\"#,
        #"{"method":"a.B","parameters":{"x":{"#,
        #"{"method":"a.B","parameters":{"#,
        #"{"method":"a.B","parameters":{"x":"}"}"#,
        #"{"method":"a.B","parameters":{"a":1} "#,
        #"{"method":"a.B","parameters":{"a":1}}}"#,
        #"{"method":"a.B","parameters":{"a":1}]"#,
        #"{"method":"a.B","parameters":{"widget":5,"x":[1,]}}"#,
        // A fault in the envelope beside a fault in the parameters: not JSON wins.
        #"{"method":7,"parameters":{"x":[1,]}}"#,
        #"{"more":"yes","parameters":{"x":"\ud800"}}"#,
        #"{"parameters":{"x":01}}"#,
        #"{"method":"aB","parameters":{"x":-}}"#,
        // The same faults with valid parameters: answered.
        #"{"method":7,"parameters":{"x":[1]}}"#,
        #"{"more":"yes","parameters":{"x":"\ud83d\ude00"}}"#,
        #"{"method":"aB","parameters":{"x":-1}}"#,
        // A second `parameters`: both are checked.
        #"{"method":"a.B","parameters":{"x":[1,]},"parameters":{}}"#,
        #"{"method":"a.B","parameters":{},"parameters":{"x":[1,]}}"#,
        #"{"method":"a.B","parameters":{},"parameters":{}}"#,
        #"{"method":"a.B","parameters":{"x":[1,]},"parameters":null}"#,
        // Not JSON in the envelope after the parameters.
        #"{"method":"a.B","parameters":{},"more":tru}"#,
        #"{"method":"a.B","parameters":{} x"#,
        // JSON text that is not an object.
        "2", "[]", #""x""#, "",
    ]

    @Test(arguments: DeferredParametersTests.messages, Walk.allCases)
    func aWalkRefusesExactlyWhatTheWholeScanRefuses(text: String, walk: Walk) {
        let bytes = Array(text.utf8)
        let whole = Self.outcome { try VarlinkCall(decoding: bytes) }
        // The reference: a message is not a call iff it is not a JSON object, checked alone.
        let isJSONObject = bytes.withUnsafeBytes { buffer in
            var reader = JSONReader(buffer)
            return (try? JSONReader.validate(buffer)) != nil && (try? reader.peek()) == .object
        }
        #expect((whole.error == .notAJSONObject) == !isJSONObject)
        #expect(Self.deferred(bytes, walk) == whole)
    }

    @Test(arguments: Walk.allCases)
    func invalidUTF8InTheParametersIsNotACall(walk: Walk) {
        for bad: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80]] {
            let bytes = Array(#"{"method":"a.B","parameters":{"x":"a"#.utf8) + bad + Array(#""}}"#.utf8)
            #expect(Self.deferred(bytes, walk).error == .notAJSONObject)
            let key = Array(#"{"method":"a.B","parameters":{""#.utf8) + bad + Array(#"":1}}"#.utf8)
            #expect(Self.deferred(key, walk).error == .notAJSONObject)
        }
    }

    @Test(arguments: Walk.allCases)
    func aControlCharacterInTheParametersIsNotACall(walk: Walk) {
        let bytes = Array(#"{"method":"a.B","parameters":{"x":"a"#.utf8) + [0x0A] + Array(#""}}"#.utf8)
        #expect(Self.deferred(bytes, walk).error == .notAJSONObject)
    }

    /// The nesting limit counts the envelope: parameters may nest one level less than
    /// the maximum, as when the whole message is read at once.
    @Test(arguments: Walk.allCases)
    func theNestingLimitCountsTheEnvelope(walk: Walk) {
        func message(parameterDepth: Int) -> [UInt8] {
            let inner = String(repeating: "[", count: parameterDepth - 1) + String(repeating: "]", count: parameterDepth - 1)
            return Array(#"{"method":"a.B","parameters":{"x":\#(inner)}}"#.utf8)
        }
        let deepest = message(parameterDepth: JSONReader.maximumDepth - 1)
        #expect(deepest.withUnsafeBytes { (try? JSONReader.validate($0)) != nil })
        #expect(Self.deferred(deepest, walk).error == nil)
        let tooDeep = message(parameterDepth: JSONReader.maximumDepth)
        #expect(tooDeep.withUnsafeBytes { (try? JSONReader.validate($0)) == nil })
        #expect(Self.deferred(tooDeep, walk).error == .notAJSONObject)
        let farTooDeep = Array(#"{"method":"a.B","parameters":{"x":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(Self.deferred(farTooDeep, walk).error == .notAJSONObject)
    }

    /// What the walk returns is kept for the handler.
    @Test func theWalksValueIsKept() throws {
        var call = try Array(#"{"method":"a.B","parameters":{"widget":"a/b"}}"#.utf8).withUnsafeBytes {
            try VarlinkCall(decodingDeferringParameters: $0)
        }
        #expect(!call.parametersAreChecked)
        try call.readParameters { (reader) throws(JSONReadError) -> String in
            var widget = ""
            try reader?.readObject { (inner, _) throws(JSONReadError) in widget = try inner.readString() }
            return widget
        }
        #expect(call.walkedParameters(as: String.self) == "a/b")
        #expect(call.walkedParameters(as: Int.self) == nil)
        // A call printed shows none of its parameters, walked or not (they can be content).
        #expect(!String(describing: call).contains("a/b"))
    }
}
