import Foundation
import Testing
@testable import WidgetModel

/// Field-level examples of each mode, and proof that hidden values leave no trace.
@Suite struct RedactionTests {
    private func present(_ decision: PresentationDecision, timeline: Timeline = Fixtures.timeline,
                         placeholder: Placeholder? = Fixtures.placeholder) -> Presentation {
        PresentationRules.present(
            decision, widget: Fixtures.widget, timeline: timeline, placeholder: placeholder,
            reloadDue: timeline.reloadDue, surface: .lockScreen, now: Fixtures.at(30), state: .unlocked)
    }

    @Test func contentShowsEveryFieldAsStored() throws {
        let presentation = present(.content)
        #expect(presentation.entry.fields == [
            "balance": PresentedField(value: .string(Fixtures.secret), privacy: .sensitive),
            "title": PresentedField(value: .string("Account"), privacy: .public),
            "temp": PresentedField(value: .number(21.5)),
        ])
        #expect(presentation.entry.relevance == Relevance(score: 0.5, duration: 60))
        // The whole wire shape, byte for byte, as a `.sortedKeys` encoder writes it.
        let expected = #"{"entry":{"date":"2026-01-01T00:00:00Z","fields":{"balance":{"privacy":"sensitive","value":"hunter2-SECRET-7f3a"},"#
            + #""temp":{"value":21.5},"title":{"privacy":"public","value":"Account"}},"relevance":{"duration":60,"score":0.5}},"#
            + #""luminanceReduced":false,"mode":"content","reasons":[],"stale":false,"surface":"lockScreen","#
            + #""validUntil":"2026-01-01T00:10:00Z","widget":"com.example.weather\/forecast#lock-1"}"#
        #expect(try Fixtures.encode(presentation) == expected)
    }

    @Test func redactedReplacesOnlySensitiveFieldsWithThePlaceholdersValue() throws {
        let presentation = present(.redacted)
        #expect(presentation.entry.fields == [
            "balance": PresentedField(value: .string("— €"), redacted: true),
            "title": PresentedField(value: .string("Account"), privacy: .public),
            "temp": PresentedField(value: .number(21.5)),
        ])
        #expect(presentation.entry.date == Fixtures.t0)
        #expect(try Fixtures.encode(presentation.entry.fields["balance"]) == #"{"redacted":true,"value":"— €"}"#)
    }

    @Test func redactedUsesNullWhenThePlaceholderHasNoValueForTheName() throws {
        let presentation = present(.redacted, placeholder: nil)
        #expect(presentation.entry.fields["balance"] == PresentedField(value: .null, redacted: true))
        #expect(try Fixtures.encode(presentation.entry.fields["balance"]) == #"{"redacted":true,"value":null}"#)
        let other = present(.redacted, placeholder: Placeholder(fields: ["unrelated": Field(value: .string("x"))]))
        #expect(other.entry.fields["balance"] == PresentedField(value: .null, redacted: true))
    }

    @Test func placeholderShowsThePlaceholderWithAllButPublicFieldsRedacted() throws {
        let presentation = present(.placeholder)
        #expect(presentation.mode == .placeholder)
        #expect(presentation.entry == PresentedEntry(date: nil, relevance: nil, fields: [
            "balance": PresentedField(value: .string("— €"), redacted: true),
            "title": PresentedField(value: .string("Account"), privacy: .public),
            "temp": PresentedField(value: .string("--°"), redacted: true),
        ]))
        #expect(presentation.validUntil == nil)
        let json = try Fixtures.encode(presentation)
        #expect(!json.contains(#""date""#))
        #expect(!json.contains(#""validUntil""#))
        #expect(!json.contains(#""relevance""#))
    }

    /// Real values of many types and sizes, all sensitive.
    private static let secrets: [JSONValue] = [
        .string(Fixtures.secret), .string(Fixtures.secret + String(repeating: "!", count: 500)), .string(""),
        .number(987_654.321), .number(0), .bool(true), .null,
        .array([.string(Fixtures.secret), .number(987_654.321)]),
        .object([Fixtures.secret: .string(Fixtures.secret)]),
    ]

    @Test(arguments: [PresentationDecision.redacted, .placeholder])
    func aSecretAppearsNowhereInTheEncodedPresentation(decision: PresentationDecision) throws {
        var encodings = Set<String>()
        for secret in Self.secrets {
            let timeline = Timeline(entries: [Fixtures.entry(at: 0, secret: secret), Fixtures.entry(at: 600, secret: secret)])
            let json = try Fixtures.encode(present(decision, timeline: timeline))
            #expect(!json.contains(Fixtures.secret))
            #expect(!json.contains("987654"))
            encodings.insert(json)
        }
        // Nothing derived from the value (its type, its length) changes a single byte.
        #expect(encodings.count == 1)
        // And content mode does show it: the check above can fail.
        let shown = try Fixtures.encode(present(.content))
        #expect(shown.contains(Fixtures.secret))
    }

    @Test func placeholderModeTakesNothingFromTheTimelineEvenItsFieldNames() throws {
        let timeline = Timeline(entries: [Entry(date: Fixtures.t0, fields: ["secret-name-\(Fixtures.secret)": Field(value: .number(1))])])
        let json = try Fixtures.encode(present(.placeholder, timeline: timeline))
        #expect(!json.contains(Fixtures.secret))
        #expect(!json.contains("2026-01-01"))
    }

    @Test func presentationRoundTripsThroughJSON() throws {
        for decision in PresentationDecision.allCases {
            var presentation = present(decision)
            let data = Data(try Fixtures.encode(presentation).utf8)
            // A `Decoder` does not tell the fields' order: they come back sorted by name.
            presentation.entry.fields = FieldList(sorting: presentation.entry.fields.dictionary)
            #expect(try JSONDecoder().decode(Presentation.self, from: data) == presentation)
        }
    }
}
