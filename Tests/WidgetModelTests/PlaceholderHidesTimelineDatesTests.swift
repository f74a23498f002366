import Foundation
import Testing
@testable import WidgetModel

/// One placeholder that stands in for content the host may not see: a row of the rule
/// table that shows the placeholder (beforeFirstUnlock, locked A or B), or one that would
/// show content or redact it but whose timeline cannot be read (rule 4).
struct HiddenTimelineCase: Sendable, CustomTestStringConvertible {
    let rule: RuleCase
    let unreadable: Bool

    var testDescription: String { rule.testDescription + (unreadable ? " unreadable" : "") }

    static let all: [HiddenTimelineCase] =
        RuleCase.all.filter { expectedOutcome($0) == .placeholder }.map { HiddenTimelineCase(rule: $0, unreadable: false) }
        + RuleCase.all.filter { [.content, .redacted].contains(expectedOutcome($0)) }
        .map { HiddenTimelineCase(rule: $0, unreadable: true) }
}

/// While the placeholder stands in for a timeline, nothing derived from that timeline's
/// dates changes what the host is shown or when (issue 13, defect 8): not `stale`, not
/// the `invalidated` reason, not `validUntil`, not the instant the presentation is next
/// recomputed. Otherwise a locked class-A placeholder turning stale tells the host when
/// the secret timeline ends.
@Suite struct PlaceholderHidesTimelineDatesRules {
    static let now = Fixtures.at(900)

    /// Timelines whose dates differ in every way a host could notice: reload due long
    /// ago, due exactly now, due later with a next entry ahead, never due; and none at all.
    static let timelines: [(name: String, timeline: Timeline?)] = [
        ("ended", Timeline(entries: [Fixtures.entry(at: 0), Fixtures.entry(at: 600)], policy: .atEnd)),
        ("ends now", Timeline(entries: [Fixtures.entry(at: 0), Fixtures.entry(at: 900)], policy: .atEnd)),
        ("runs on", Timeline(entries: [Fixtures.entry(at: 0), Fixtures.entry(at: 1200), Fixtures.entry(at: 1800)], policy: .atEnd)),
        ("reload passed", Timeline(entries: [Fixtures.entry(at: 0)], policy: .after(Fixtures.at(300)))),
        ("never reloads", Timeline(entries: [Fixtures.entry(at: 0), Fixtures.entry(at: 1200)], policy: .never)),
        ("none", nil),
    ]

    @Test(arguments: HiddenTimelineCase.all)
    func aPlaceholderIsTheSameWhateverTheTimelinesDates(_ c: HiddenTimelineCase) throws {
        let decision = try PresentationRules.decide(c.rule.context)
        var shown: [(name: String, json: String, nextChange: Date?)] = []
        for (name, timeline) in Self.timelines {
            // As the daemon calls it: the reload date comes from the class-none metadata,
            // the timeline only when the decision reads it and it can be read.
            let readable = decision.needsTimeline && !c.unreadable ? timeline : nil
            let presentation = PresentationRules.present(
                decision, widget: Fixtures.widget, timeline: readable, placeholder: Fixtures.placeholder,
                reloadDue: timeline?.reloadDue, surface: c.rule.surface, now: Self.now, state: .unlocked)
            #expect(presentation.mode == .placeholder, "\(name)")
            let nextChange = PresentationRules.nextChange(of: presentation, timeline: readable, now: Self.now)
            shown.append((name, try Self.bytes(presentation), nextChange))
        }
        let reference = try #require(shown.last)
        #expect(reference.json.contains("\"stale\":false"))
        for (name, json, nextChange) in shown {
            #expect(json == reference.json, "\(name)")
            #expect(nextChange == nil, "\(name): the placeholder would be recomputed at \(String(describing: nextChange))")
        }
    }

    @Test func contentStillTurnsStaleAndChangesAtItsDates() throws {
        // The control: where the host may see the timeline, its dates do show.
        let context = PresentationContext(
            widget: Fixtures.widget, surface: .homeScreen, state: .unlocked, passcodeSet: true,
            protectionClass: .complete, settings: Settings())
        let ended = try #require(Self.timelines[0].timeline)
        let stale = PresentationRules.present(
            try PresentationRules.decide(context), widget: Fixtures.widget, timeline: ended,
            placeholder: Fixtures.placeholder, reloadDue: ended.reloadDue, surface: .homeScreen, now: Self.now, state: .unlocked)
        // A due reload alone leaves the content as it is (DESIGN §4): stale, not invalidated.
        #expect(stale.stale && stale.reasons == [])
        let runsOn = try #require(Self.timelines[2].timeline)
        let fresh = PresentationRules.present(
            .content, widget: Fixtures.widget, timeline: runsOn, placeholder: nil, reloadDue: runsOn.reloadDue,
            surface: .homeScreen, now: Self.now, state: .unlocked)
        #expect(fresh.validUntil == Fixtures.at(1200))
        #expect(PresentationRules.nextChange(of: fresh, timeline: runsOn, now: Self.now) == Fixtures.at(1200))
    }

    /// The bytes a host receives, as text so that a difference reads well.
    private static func bytes(_ presentation: Presentation) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(presentation), as: UTF8.self)
    }
}
