import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// Fields keep the order their provider wrote them in: read in text order, stored in it,
/// and presented in it in every mode (a redacted field keeps its place; a placeholder
/// shows its own order). Hosts draw fields in this order.
@Suite struct FieldOrderTests {
    static let entryOrder = ["zulu", "balance", "alpha", "mike"]
    static let placeholderOrder = ["mike", "balance", "title", "alpha"]

    static func fieldsJSON(_ order: [String]) -> String {
        "{" + order.map { name in
            let privacy = name == "balance" ? #","privacy":"sensitive""# : name == "alpha" || name == "title" ? #","privacy":"public""# : ""
            return #""\#(name)":{"value":"\#(name)-value"\#(privacy)}"#
        }.joined(separator: ",") + "}"
    }

    static var timeline: Timeline {
        get throws {
            try Timeline.decode(from: Array(#"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":\#(fieldsJSON(entryOrder))}]}"#.utf8))
        }
    }

    static var placeholder: Placeholder {
        get throws { try Placeholder.decode(from: Array(#"{"fields":\#(fieldsJSON(placeholderOrder))}"#.utf8)) }
    }

    @Test(arguments: [
        (PresentationDecision.content, entryOrder),
        (.redacted, entryOrder),
        (.placeholder, placeholderOrder),
    ])
    func presentationsListFieldsInTheTimelinesOrder(decision: PresentationDecision, order: [String]) throws {
        let presentation = PresentationRules.present(
            decision, widget: Fixtures.widget, timeline: try Self.timeline, placeholder: try Self.placeholder,
            reloadDue: nil, surface: .lockScreen, now: Fixtures.at(30), state: .unlocked)
        #expect(presentation.entry.fields.keys == order)
        // And so on the wire: written straight from the encoder's tree.
        let text = String(decoding: try JSONTreeEncoder.bytes(presentation), as: UTF8.self)
        let positions = order.map { text.range(of: #""\#($0)":{"#)!.lowerBound }
        #expect(positions == positions.sorted(), "\(text)")
        if decision == .redacted {
            #expect(presentation.entry.fields["balance"] == PresentedField(value: .string("balance-value"), redacted: true))
        }
    }

    @Test func theStoredBodyKeepsTheOrderAndReadsBackEqual() throws {
        let timeline = try Self.timeline
        #expect(timeline.entries[0].fields.keys == Self.entryOrder)
        let body = JSONWriter.bytes { timeline.write(to: &$0) }
        #expect(body.count == timeline.canonicalJSONCount)
        let reread = try Timeline.decode(from: body)
        #expect(reread == timeline)
        #expect(reread.entries[0].fields.keys == Self.entryOrder)
        let placeholder = try Self.placeholder
        #expect(try Placeholder.decode(from: placeholder.canonicalJSON).fields.keys == Self.placeholderOrder)
    }

    @Test func aBodyStoredWithNamesSortedKeepsThatOrder() throws {
        let sorted = Self.entryOrder.sorted()
        let body = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":\#(Self.fieldsJSON(sorted))}],"policy":{"kind":"atEnd"}}"#
        let timeline = try Timeline.decode(from: Array(body.utf8))
        #expect(timeline.entries[0].fields.keys == sorted)
        #expect(try Timeline.decode(from: JSONWriter.bytes { timeline.write(to: &$0) }) == timeline)
    }

    @Test func reorderedFieldsAreADifferentEntry() {
        let a: FieldList<Field> = ["x": Field(value: .null), "y": Field(value: .null)]
        let b: FieldList<Field> = ["y": Field(value: .null), "x": Field(value: .null)]
        #expect(a != b)
        #expect(a.dictionary == b.dictionary)
    }
}
