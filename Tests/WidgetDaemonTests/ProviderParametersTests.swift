import Foundation
import Testing
import Varlink
@testable import WidgetDaemon
import WidgetModel
import WidgetdWire

/// `PutTimeline`'s parameters read in place: `widget` and `family` problems are
/// `InvalidParameter`, problems inside the timeline parts `InvalidTimeline` with a path,
/// judged in declaration order whatever order the members come in.
@Suite struct ProviderParametersTests {
    private static let entry = #"{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1}}}"#

    private func read(_ json: String?) throws -> PutTimelineParameters {
        guard let json else { return try PutTimelineParameters.read(from: nil) }
        return try Array(json.utf8).withUnsafeBytes { try PutTimelineParameters.read(from: $0) }
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

/// The reply every write gets, written without `JSONEncoder`, is the encoder's bytes.
@Suite struct GenerationReplyTests {
    @Test(arguments: [UInt64(0), 1, 42, 1_000_000, UInt64.max])
    func theDirectReplyIsTheEncodersBytes(_ generation: UInt64) {
        let reply = GenerationReply(generation: generation)
        #expect(reply.encodedReply == VarlinkReply.encode(parameters: reply))
    }
}
