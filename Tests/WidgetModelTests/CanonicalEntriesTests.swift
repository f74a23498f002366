import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// `CanonicalEntries` writes a request's entries straight into the canonical body: what
/// it accepts must be exactly what `Entry.readArray` and `TimelineValidator` accept,
/// written as `Timeline.write` writes it, with the reader left where `readArray` leaves
/// it; everything else it refuses, for the general way to judge.
@Suite struct CanonicalEntriesTests {
    static let limits = TimelineLimits(maxEntries: 4, maxFieldsPerEntry: 3, maxFieldNameBytes: 8, maxValueBytes: 64, maxNestingDepth: 2)

    /// The body and where the reader stopped, or nil when refused.
    static func transcribed(_ json: String, policy: ReloadPolicy = .atEnd, limits: TimelineLimits = limits) -> ([UInt8], Int, Date?)? {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBytes { buffer -> ([UInt8], Int, Date?)? in
            var reader = JSONReader(buffer)
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
            defer { scratch.deallocate() }
            var writer = JSONWriter(into: scratch)
            let last: Date?
            do { last = try CanonicalEntries.transcribe(from: &reader, limits: limits, to: &writer) } catch { return nil }
            CanonicalEntries.finish(policy: policy, to: &writer)
            #expect(writer.fits)
            return (Array(UnsafeRawBufferPointer(rebasing: scratch[0..<writer.count])), reader.offset, last)
        }
    }

    /// The body the general way, where the reader stopped and the reload due; nil when
    /// it refuses the entries.
    static func general(_ json: String, policy: ReloadPolicy = .atEnd, limits: TimelineLimits = limits) -> ([UInt8], Int, Date?)? {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBytes { buffer -> ([UInt8], Int, Date?)? in
            var reader = JSONReader(buffer)
            guard let entries = try? Entry.readArray(from: &reader) else { return nil }
            let timeline = Timeline(entries: entries, policy: policy)
            guard (try? TimelineValidator.validate(timeline, limits: limits)) != nil else { return nil }
            return (JSONWriter.bytes { timeline.write(to: &$0) }, reader.offset, timeline.reloadDue)
        }
    }

    static let usual: [String] = [
        "[]",
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"balance":{"privacy":"sensitive","value":"SECRET-1-xxxx"},"headline":{"value":"Sunny"},"title":{"privacy":"public","value":"Weather"}}}]"#,
        // Members in any order: privacy after value, fields before date, relevance first.
        #"[{"fields":{"t":{"value":1,"privacy":"public"}},"date":"2026-01-01T00:00:00Z"}]"#,
        #"[{"relevance":{"score":0.5,"duration":60},"fields":{"t":{"value":true}},"date":"2026-01-01T00:00:00+02:00"}]"#,
        #" [ { "date" : "2026-01-01T00:00:00.250Z" , "fields" : { "a" : { "value" : [ 1 , null , false ] , "privacy" : null } } , "relevance" : null } ] "#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{}},{"date":"2026-01-01T00:00:00Z","fields":{"b":{"value":-0}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"n":{"value":1E5},"m":{"value":0.10},"k":{"value":123456789012345678901234567890}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"u":{"value":"Grüße ☀︎ 𝄞"},"é":{"value":1e300}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":[[]]}}},{"date":"2027-06-01T12:00:00Z","fields":{}}]"#,
        // Escapes in the model's own keys and words: walked as `Entry.read` walks them.
        #"[{"\u0064ate":"2026-01-01T00:00:00Z","fields":{"t":{"value":1,"privacy":"publi\u0063"}}}]"#,
    ] + glance

    /// Layout roles and actions (DESIGN §12, §13), members in any order.
    static let glance: [String] = [
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"title","value":"Rain"},"v":{"value":"12°","privacy":"sensitive","role":"value"},"d":{"role":"detail","value":null}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"g":{"value":42,"range":[0,100],"role":"gauge","privacy":"public"},"h":{"role":"gauge","value":0.5},"i":{"role":"icon","value":"weather-clear"}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"w":{"style":"relative","role":"date","value":"2026-01-01T10:00:00+02:00"},"x":{"role":null,"range":null,"style":null,"value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"g":{"range":[-1.5,1e3],"role":"gauge","value":-1.5}}}]"#,
        // Actions before the date, after the fields, with and without their optional members.
        #"[{"actions":[{"title":"Play","kind":"button","id":"play","authentication":"alwaysAllowed","icon":"media-play"}],"date":"2026-01-01T00:00:00Z","fields":{}}]"#,
        #"[{"fields":{"t":{"value":1}},"date":"2026-01-01T00:00:00Z","actions":[{"id":"a.b_c-1","title":"Lights","kind":"toggle","isOn":false,"privacy":"sensitive"},{"id":"b","title":"Ünïcode ☀︎","kind":"toggle","isOn":true,"icon":null,"authentication":null,"privacy":null}],"relevance":{"score":1,"duration":0}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","actions":[{"id":"x","title":"Open","kind":"button","isOn":null,"authentication":"requiresLocalDeviceAuthentication"}],"fields":{"t":{"role":"title","value":"Door"}}},{"actions":null,"date":"2026-01-02T00:00:00Z","fields":{}},{"actions":[],"date":"2026-01-03T00:00:00Z","fields":{}}]"#,
    ]

    static let refused: [String] = [
        "null", "{}", "[1]",
        // Entries out of date order: sorted the general way.
        #"[{"date":"2027-01-01T00:00:00Z","fields":{}},{"date":"2026-01-01T00:00:00Z","fields":{}}]"#,
        // Escapes in names and values, and objects inside values (their keys are sorted).
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":"a\nb"}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"\u0074":{"value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":{"b":1,"a":2}}}}]"#,
        // Problems the general way names.
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1},"t":{"value":2}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"":{"value":1}}}]"#,
        "[{\"date\":\"2026-01-01T00:00:00Z\",\"fields\":{\"a\u{7F}\":{\"value\":1}}}]",
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"toolongname":{"value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"a":{"value":1},"b":{"value":1},"c":{"value":1},"d":{"value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":"0123456789012345678901234567890123456789012345678901234567890123456789"}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":[[[1]]]}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1e400}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"privacy":"x","value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1,"value":2}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"value":1,"extra":2}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":[]}]"#,
        #"[{"date":"2026-01-01T00:00:00Z"}]"#,
        #"[{"fields":{}}]"#,
        #"[{"date":"soon","fields":{}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","date":"2026-01-01T00:00:00Z","fields":{}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{},"relevance":{"score":1,"duration":-1}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{},"relevance":{"score":1}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{},"other":1}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{}},{"date":"2026-01-01T00:00:00Z","fields":{}},{"date":"2026-01-01T00:00:00Z","fields":{}},{"date":"2026-01-01T00:00:00Z","fields":{}},{"date":"2026-01-01T00:00:00Z","fields":{}}]"#,
    ] + badLayouts + badActions

    /// Roles, ranges and styles `TimelineValidator` refuses.
    static let badLayouts: [String] = [
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"big","value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"range":[0,1],"value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"style":"time","role":"title","value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"gauge","range":[5,1],"value":3}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"gauge","range":[0,1,2],"value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"gauge","value":2}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"gauge","value":"1"}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"icon","value":"../evil"}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"icon","value":1}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"date","value":"soon"}}}]"#,
        #"[{"date":"2026-01-01T00:00:00Z","fields":{"t":{"role":"title","role":"value","value":1}}}]"#,
    ]

    /// Actions `TimelineValidator` refuses.
    static let badActions: [String] = {
        let nine = (0..<9).map { #"{"id":"a\#($0)","title":"T","kind":"button"}"# }.joined(separator: ",")
        return [
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[\#(nine)]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"button"},{"id":"a","title":"U","kind":"button"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a b","title":"T","kind":"button"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"","kind":"button"}]}]"#,
            "[{\"date\":\"2026-01-01T00:00:00Z\",\"fields\":{},\"actions\":[{\"id\":\"a\",\"title\":\"T\u{7F}\",\"kind\":\"button\"}]}]",
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"toggle"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"button","isOn":true}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"slider"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","kind":"button"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"button","url":"x"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"button","icon":"/usr/x.png"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"T","kind":"button","authentication":"never"}]}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":{"id":"a"}}]"#,
            #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[],"actions":[]}]"#,
        ]
    }()

    @Test(arguments: usual, [ReloadPolicy.atEnd, .never, .after(Date(timeIntervalSince1970: 1_800_000_000))])
    func theUsualEntriesAreWrittenAsTheTimelineWritesThem(json: String, policy: ReloadPolicy) throws {
        let fast = try #require(Self.transcribed(json, policy: policy))
        let slow = try #require(Self.general(json, policy: policy))
        #expect(fast.0 == slow.0, "\(String(decoding: fast.0, as: UTF8.self)) vs \(String(decoding: slow.0, as: UTF8.self))")
        #expect(fast.1 == slow.1)
        #expect(CanonicalEntries.reloadDue(policy, lastDate: fast.2) == slow.2)
    }

    @Test(arguments: refused)
    func anythingElseIsLeftToTheGeneralWay(json: String) {
        #expect(Self.transcribed(json) == nil)
    }

    /// What it refuses only for its own reasons the general way accepts, and builds.
    @Test func whatItRefusesForItsOwnReasonsIsStillValid() {
        #expect(Self.general(Self.refused[3]) != nil)
        #expect(Self.general(Self.refused[4]) != nil)
        #expect(Self.general(Self.refused[5]) != nil)
        #expect(Self.general(Self.refused[6]) != nil)
        for json in Self.refused.dropFirst(7) { #expect(Self.general(json) == nil, "\(json)") }
    }

    /// The most an entry may carry: eight actions with every member at its longest.
    @Test func theLongestActionsAreWrittenAsTheTimelineWritesThem() throws {
        let title = String(repeating: "é", count: TimelineValidator.maxActionTitleBytes / 2)
        let icon = String(repeating: "i", count: TimelineValidator.maxIconNameBytes)
        let actions = (0..<TimelineValidator.maxActions).map { index in
            let id = String(index) + String(repeating: "x", count: TimelineValidator.maxActionIDBytes - 1)
            return #"{"id":"\#(id)","title":"\#(title)","icon":"\#(icon)","kind":"toggle","isOn":false,"#
                + #""authentication":"requiresLocalDeviceAuthentication","privacy":"sensitive"}"#
        }
        let json = #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[\#(actions.joined(separator: ","))]}]"#
        let fast = try #require(Self.transcribed(json))
        let slow = try #require(Self.general(json))
        #expect(fast.0 == slow.0)
    }

    /// An action's strings with escapes are left to the general way, which accepts them.
    @Test func anActionWithEscapesIsLeftToTheGeneralWay() {
        let json = #"[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"a","title":"Say \"hi\"","kind":"button"}]}]"#
        #expect(Self.transcribed(json) == nil)
        #expect(Self.general(json) != nil)
    }

    /// Numbers are read in place with `readNumberText`'s checks.
    @Test(arguments: ["0", "-0", "1.5", "1e308", "1.7976931348623157e308", "1e-400", "123456789012345678901234567890", "1e400", "-2e308", "1e00000001", "1.8e308"])
    func numbersInPlaceAreCheckedAsTheirText(literal: String) {
        let bytes = Array(literal.utf8)
        bytes.withUnsafeBytes { buffer in
            var a = JSONReader(buffer)
            var b = JSONReader(buffer)
            let inPlace = try? a.readNumberBytes()
            let text = try? b.readNumberText()
            #expect(inPlace.map { String(decoding: $0, as: UTF8.self) } == text)
        }
    }
}
