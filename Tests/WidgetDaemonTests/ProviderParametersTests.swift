import Foundation
import Testing
import StrictJSON
import Varlink
@testable import WidgetDaemon
import WidgetModel
import WidgetdWire

/// `PutTimeline`'s parameters read in place: `widget` and `family` problems are
/// `InvalidParameter`, problems inside the timeline parts `InvalidTimeline` with a path,
/// judged in declaration order whatever order the members come in.
@Suite struct ProviderParametersTests {
    private static let entry = #"{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1}}}"#

    /// The message of a call with `json` as its parameters (none when nil).
    static func message(_ method: WidgetdMethod, _ json: String?) -> [UInt8] {
        Array((json.map { #"{"method":"\#(method.fullName)","parameters":\#($0)}"# } ?? #"{"method":"\#(method.fullName)"}"#).utf8)
    }

    /// The call as the event loop decodes it: its parameters walked once, as framed.
    static func framed(_ message: [UInt8]) throws -> VarlinkCall {
        try message.withUnsafeBytes { bytes in
            var call = try VarlinkCall(decodingDeferringParameters: bytes)
            let walked = try ProviderParameters.read(of: &call)
            #expect(walked && call.walkedParameters(as: ProviderParameters.self) != nil)
            return call
        }
    }

    /// Reads the parameters as framed, and from a call checked whole (parameters read
    /// when handled): both must agree.
    private func read(_ json: String?) throws -> PutTimelineParameters {
        let message = Self.message(.putTimeline, json)
        let framed = Result { try PutTimelineParameters.read(from: try Self.framed(message)) }
        let checked = Result { try PutTimelineParameters.read(from: try VarlinkCall(decoding: message)) }
        switch (framed, checked) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a as ServiceError), .failure(let b as ServiceError)): #expect(a == b)
        default: Issue.record("framed \(framed), checked \(checked)")
        }
        return try framed.get()
    }

    @Test func readsEveryMember() throws {
        let parameters = try read(#"{"placeholder":{"fields":{}},"policy":{"kind":"never"},"entries":[\#(Self.entry)],"family":"systemSmall","widget":"a/b","extra":[1]}"#)
        #expect(parameters.widget == "a/b")
        #expect(parameters.family == "systemSmall")
        #expect(parameters.entries.count == 1)
        #expect(parameters.policy == .never)
        #expect(parameters.placeholder == Placeholder(fields: [:]))
        let minimal = try read(#"{"widget":"a/b","entries":[],"family":null,"policy":null,"placeholder":null}"#)
        #expect(minimal.family == nil && minimal.policy == nil && minimal.placeholder == nil)
    }

    @Test(arguments: [
        (nil, ServiceError.invalidParameter("widget")),
        (#"{"entries":[]}"#, .invalidParameter("widget")),
        (#"{"widget":null,"entries":[]}"#, .invalidParameter("widget")),
        (#"{"entries":[{}],"widget":5}"#, .invalidParameter("widget")),
        (#"{"widget":"a/b","family":1,"entries":[]}"#, .invalidParameter("family")),
        (#"{"widget":"a/b","widget":"a/c","entries":[]}"#, .invalidParameter("widget")),
        (#"{"widget":"a/b"}"#, .invalidTimeline(#"missing "entries""#)),
        (#"{"widget":"a/b","entries":[],"entries":[]}"#, .invalidTimeline(#"duplicate key "entries""#)),
        (#"{"widget":"a/b","family":"x","family":null,"entries":[]}"#, .invalidParameter("family")),
        // The first member given twice is named, in document order.
        (#"{"widget":"a/b","entries":[],"placeholder":null,"policy":null,"policy":null,"placeholder":null}"#,
         .invalidTimeline(#"duplicate key "policy""#)),
        (#"{"widget":"a/b","placeholder":null,"placeholder":{"fields":{}},"entries":[]}"#,
         .invalidTimeline(#"duplicate key "placeholder""#)),
        (#"{"widget":"a/b","entries":[\#(entry),{"date":"soon","fields":{}}]}"#,
         .invalidTimeline("entries[1].date: is not an RFC 3339 date-time such as 2026-01-31T08:00:00Z")),
        (#"{"widget":"a/b","entries":[],"placeholder":{"fields":{"t":{"value":1,"privacy":"x"}}}}"#,
         .invalidTimeline(#"placeholder.fields["t"].privacy: must be "sensitive" or "public""#)),
        (#"{"widget":"a/b","entries":[],"policy":{"kind":"after"}}"#, .invalidTimeline(#"policy: kind "after" needs a "date""#)),
    ])
    func problemsAreNamedAsBefore(json: String?, expected: ServiceError) {
        do {
            _ = try read(json)
            Issue.record("accepted")
        } catch let error as ServiceError {
            #expect(error == expected)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

/// The walk that decodes `PutTimeline`'s and `AppendEntries`' parameters is the one that
/// checks them as JSON: bytes that are not JSON text anywhere in them, also after a value
/// it refuses or in a member it does not read, make the message not a call (the
/// connection is closed), exactly as the scan of the whole message decides.
@Suite struct ProviderParametersWalkTests {
    static let entry = #"{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1}}}"#

    static let notJSON: [String] = [
        #"{"widget":"a/\q","entries":[]}"#,
        #"{"widget":"a/b","entries":[\#(entry),{"date":01}]}"#,
        #"{"widget":5,"entries":[1,]}"#,
        #"{"widget":"a/b","family":7,"entries":[],"x":"\ud800"}"#,
        #"{"widget":"a/b","entries":[{"date":"soon","fields":{}},{"date":tru}]}"#,
        #"{"widget":"a/b","entries":[],"policy":{"kind":"after","date":-}}"#,
        #"{"widget":"a/b","entries":[],"placeholder":{"fields":{"t":{"value":1,"privacy":"x"}},"z":[}}"#,
        #"{"widget":"a/b","widget":"a/c\x","entries":[]}"#,
        #"{"widget":"a/b","entries":[],"entries":[1,]}"#,
        #"{"extra":{"deep":[1,2,{"x":"\u12"}]},"widget":"a/b","entries":[]}"#,
        #"{"widget":"a/b","entries":[]"#,
        #"{"widget":"a/b","entries":[],}"#,
        #"{"widget":"a/b" "entries":[]}"#,
    ]

    @Test(arguments: notJSON, [WidgetdMethod.putTimeline, .appendEntries])
    func bytesThatAreNotJSONMakeNoCall(json: String, method: WidgetdMethod) {
        let message = ProviderParametersTests.message(method, json)
        #expect(message.withUnsafeBytes { (try? JSONReader.validate($0)) == nil })
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) { try VarlinkCall(decoding: message) }
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) { try ProviderParametersTests.framed(message) }
    }

    /// `AppendEntries` reads neither `family`, `policy` nor `placeholder`, but checks them.
    @Test(arguments: [#"{"widget":"a/b","entries":[],"family":"\ud800"}"#, #"{"widget":"a/b","entries":[],"policy":{"kind":}}"#])
    func membersAppendEntriesIgnoresAreChecked(json: String) {
        let message = ProviderParametersTests.message(.appendEntries, json)
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) { try ProviderParametersTests.framed(message) }
    }

    /// Refusals are named as when the parameters are read at handling, for both methods.
    @Test(arguments: [
        nil,
        #"{"widget":"a/b","entries":[],"family":7,"policy":{"kind":"x"},"placeholder":null}"#,
        #"{"widget":"a/b","entries":[{"date":"soon","fields":{}}]}"#,
        #"{"widget":"a/b","entries":[],"policy":null,"policy":{"kind":"never"}}"#,
        #"{"widget":"a/b","entries":null}"#,
        #"{"widget":"a/b","entries":[\#(entry)],"placeholder":{"fields":{"t":{"value":1,"privacy":"x"}}}}"#,
    ])
    func appendEntriesIsReadAsWhenHandled(json: String?) {
        let message = ProviderParametersTests.message(.appendEntries, json)
        let framed = Result { try AppendEntriesParameters.read(from: try ProviderParametersTests.framed(message)) }
        let checked = Result { try AppendEntriesParameters.read(from: try VarlinkCall(decoding: message)) }
        switch (framed, checked) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a as ServiceError), .failure(let b as ServiceError)): #expect(a == b)
        default: Issue.record("framed \(framed), checked \(checked)")
        }
    }

    /// Every other method's parameters are checked alone, and not walked.
    @Test func otherMethodsAreCheckedNotWalked() throws {
        var call = try Array(#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"widget":"a/b"}}"#.utf8).withUnsafeBytes {
            try VarlinkCall(decodingDeferringParameters: $0)
        }
        #expect(try !ProviderParameters.read(of: &call))
        #expect(call.walkedParameters(as: ProviderParameters.self) == nil)
    }
}

/// With a scratch, `PutTimeline`'s usual entries are written into the canonical body as
/// the message is walked: the body `CanonicalBodyEncoder` writes for the timeline they
/// make, and the same members otherwise; entries that are not the usual kind are read.
@Suite struct ProviderParametersTranscriptTests {
    static let entry = #"{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1,"privacy":"public"}}}"#
    /// A glance widget's entry: layout roles and actions are the usual kind too.
    static let glanceEntry = #"{"fields":{"t":{"role":"title","value":"Song"},"g":{"value":0.5,"role":"gauge"}},"date":"2026-01-01T00:00:00Z","actions":[{"id":"next","title":"Next","kind":"button","authentication":"alwaysAllowed"}]}"#

    static func walk(_ json: String, checked: Bool = false) throws -> ProviderParameters {
        let message = ProviderParametersTests.message(.putTimeline, json)
        let bodies = CanonicalBodyEncoder()
        if checked {
            return try ProviderParameters.walked(try VarlinkCall(decoding: message), .putTimeline, transcribingWith: bodies)
        }
        return try message.withUnsafeBytes { bytes in
            var call = try VarlinkCall(decodingDeferringParameters: bytes)
            #expect(try ProviderParameters.read(of: &call, transcribingWith: bodies))
            return try #require(call.walkedParameters(as: ProviderParameters.self))
        }
    }

    @Test(arguments: [false, true], [entry, glanceEntry])
    func theUsualEntriesBecomeTheBody(checked: Bool, entry: String) throws {
        let json = #"{"widget":"a/b","policy":{"kind":"never"},"entries":[\#(entry),\#(entry)],"family":"systemSmall"}"#
        let members = try Self.walk(json, checked: checked)
        let transcript = try #require(members.transcript)
        let body = try #require(try transcript.body?.get())
        let general = try PutTimelineParameters.read(from: try VarlinkCall(decoding: ProviderParametersTests.message(.putTimeline, json)))
        let expected = try CanonicalBodyEncoder.encodeMeasuringFirst(Timeline(entries: general.entries, policy: .never))
        #expect(body.withUnsafeBytes { Array($0) } == expected.withUnsafeBytes { Array($0) })
        #expect(transcript.lastDate == general.entries.last?.date)
        #expect(try members.widget() == "a/b" && members.family() == "systemSmall")
        #expect(try members.timelinePart(\.policy) == .never)
    }

    @Test func aRefusedPolicyLeavesNoBodyAndIsNamed() throws {
        let members = try Self.walk(#"{"widget":"a/b","entries":[\#(Self.entry)],"policy":{"kind":"x"}}"#)
        #expect(members.transcript != nil && members.transcript?.body == nil)
        #expect(throws: ServiceError.invalidTimeline(#"policy.kind: must be "atEnd", "after" or "never""#)) {
            try members.timelinePart(\.policy)
        }
    }

    @Test(arguments: [
        #"{"widget":"a/b","entries":[{"date":"2027-01-01T00:00:00Z","fields":{}},\#(entry)]}"#,
        #"{"widget":"a/b","entries":[{"date":"soon","fields":{}}]}"#,
        #"{"widget":"a/b","entries":null}"#,
        #"{"widget":"a/b","entries":[],"entries":[]}"#,
    ])
    func otherEntriesAreReadAsBefore(json: String) throws {
        let members = try Self.walk(json)
        let general = Result { try PutTimelineParameters.read(from: try VarlinkCall(decoding: ProviderParametersTests.message(.putTimeline, json))) }
        let walked = Result { try PutTimelineParameters.read(members) }
        switch (walked, general) {
        case (.success(let a), .success(let b)): #expect(a == b && members.transcript == nil)
        case (.failure(let a as ServiceError), .failure(let b as ServiceError)): #expect(a == b)
        default: Issue.record("walked \(walked), general \(general)")
        }
    }

    /// Bytes that are not JSON after transcribed entries still make no call.
    @Test func aSyntaxErrorAfterTheEntriesStillEndsTheWalk() {
        #expect(throws: VarlinkCallDecodingError.notAJSONObject) {
            try Self.walk(#"{"widget":"a/b","entries":[\#(Self.entry)],"x":[1,]}"#)
        }
    }
}

/// The reply every write gets, written without `JSONEncoder`, is the encoder's bytes.
@Suite struct GenerationReplyTests {
    @Test(arguments: [UInt64(0), 1, 42, 1_000_000, UInt64.max])
    func theDirectReplyIsTheEncodersBytes(_ generation: UInt64) {
        let reply = GenerationReply(generation: generation)
        #expect(reply.encodedReply == VarlinkReply.encode(parameters: reply))
    }
}
