import Foundation
import Testing
@testable import WidgetModel

/// The setting `hideSensitiveComplications`, with `selected` split by whether the widget is listed.
enum HideCase: String, CaseIterable, Sendable {
    case off, all, selectedWithWidget, selectedWithoutWidget

    var settingsPart: (HideSensitiveComplications, [WidgetID]) {
        switch self {
        case .off: (.off, [Fixtures.widget])
        case .all: (.all, [])
        case .selectedWithWidget: (.selected, [Fixtures.otherWidget, Fixtures.widget])
        case .selectedWithoutWidget: (.selected, [Fixtures.otherWidget])
        }
    }
}

/// The lock screen's settings: `lockScreenWidgetsAccess`, and whether this widget is in
/// `hiddenLockScreenWidgets` (another widget always is, which must not matter).
enum LockScreenCase: String, CaseIterable, Sendable {
    case off, on, onHidingThisWidget

    var settingsPart: (Bool, [WidgetID]) {
        switch self {
        case .off: (false, [])
        case .on: (true, [Fixtures.otherWidget])
        case .onHidingThisWidget: (true, [Fixtures.otherWidget, Fixtures.widget])
        }
    }
}

/// One row of the table: every input of DESIGN §4 except the timeline (stored and readable).
struct RuleCase: Sendable, CustomTestStringConvertible {
    let state: DeviceState
    let protectionClass: ProtectionClass
    let passcodeSet: Bool
    let surface: Surface
    let lockScreen: LockScreenCase
    let hide: HideCase

    var testDescription: String {
        "\(state) \(protectionClass) passcode:\(passcodeSet) \(surface) lockScreen:\(lockScreen) hide:\(hide)"
    }

    var context: PresentationContext {
        let (mode, hidden) = hide.settingsPart
        let (access, hiddenOnLockScreen) = lockScreen.settingsPart
        return PresentationContext(
            widget: Fixtures.widget, surface: surface, state: state, passcodeSet: passcodeSet,
            protectionClass: protectionClass,
            settings: Settings(
                lockScreenWidgetsAccess: access, hiddenLockScreenWidgets: hiddenOnLockScreen, hideSensitiveComplications: mode,
                hiddenComplications: hidden))
    }

    /// 3 states × 4 classes × 2 passcode × 4 surfaces × 3 lock screen × 4 hide = 1,152 rows.
    static let all: [RuleCase] = DeviceState.allCases.flatMap { state in
        ProtectionClass.allCases.flatMap { protectionClass in
            [false, true].flatMap { passcodeSet in
                Surface.allCases.flatMap { surface in
                    LockScreenCase.allCases.flatMap { lockScreen in
                        HideCase.allCases.map { hide in
                            RuleCase(
                                state: state, protectionClass: protectionClass, passcodeSet: passcodeSet,
                                surface: surface, lockScreen: lockScreen, hide: hide)
                        }
                    }
                }
            }
        }
    }
}

enum Outcome: Equatable {
    case unavailable, placeholder, redacted, content
}

/// DESIGN §4 written out once more, in the words of the document, as the test's oracle.
func expectedOutcome(_ c: RuleCase) -> Outcome {
    // 1. `remote` and class `complete` or `completeUnlessOpen` → error `UnavailableOnSurface`.
    if c.surface == .remote && (c.protectionClass == .complete || c.protectionClass == .completeUnlessOpen) {
        return .unavailable
    }
    // 2. `beforeFirstUnlock` → placeholder (every class, `none` too).
    if c.state == .beforeFirstUnlock { return .placeholder }
    // 3. `locked` and class `complete`, or `locked` and class `completeUnlessOpen` with a passcode set → placeholder.
    if c.state == .locked && c.protectionClass == .complete { return .placeholder }
    if c.state == .locked && c.protectionClass == .completeUnlessOpen && c.passcodeSet { return .placeholder }
    // 4. no timeline stored, or its content cannot be read → placeholder. (Here one is stored and readable.)
    // 5. `locked`, surface `lockScreen`, and setting `lockScreenWidgetsAccess` off, or this widget id
    //    in `hiddenLockScreenWidgets` → redacted.
    if c.state == .locked && c.surface == .lockScreen && (c.lockScreen == .off || c.lockScreen == .onHidingThisWidget) {
        return .redacted
    }
    // 6. surface `alwaysOn`, and `hideSensitiveComplications` is `all`, or `selected` with this widget id listed → redacted.
    if c.surface == .alwaysOn && (c.hide == .all || c.hide == .selectedWithWidget) { return .redacted }
    // 7. otherwise → content.
    return .content
}

@Suite struct PresentationRulesTests {
    @Test func theTableCoversEveryCombination() {
        #expect(RuleCase.all.count == 3 * 4 * 2 * 4 * 3 * 4)
        // Counted by hand from the rules, so that the oracle itself is checked:
        // remote × {A, B}: 3 states × 2 classes × 2 passcode × 3 lock screen × 4 hide = 144.
        #expect(RuleCase.all.filter { expectedOutcome($0) == .unavailable }.count == 144)
        // Readable while locked: (class, passcode) pairs C×2, D×2 and B without passcode = 5.
        // Redacted by rule 5: locked, lockScreen, access off or this widget hidden: 5 × 2 × 4 hide = 40.
        // Redacted by rule 6: alwaysOn with 2 of 4 hide cases: unlocked 4 × 2 × 3 lock screen × 2 = 48,
        // locked 5 × 3 lock screen × 2 = 30. Total 118.
        #expect(RuleCase.all.filter { expectedOutcome($0) == .redacted }.count == 118)
        // Placeholder: beforeFirstUnlock outside rule 1 (4 surfaces for C, D; 3 for A, B):
        // (2 × 4 + 2 × 3) × 2 pc × 3 lock screen × 4 hide = 336; locked A on 3 surfaces × 2 pc × 12 = 72;
        // locked B with passcode on 3 surfaces × 12 = 36. Total 444.
        #expect(RuleCase.all.filter { expectedOutcome($0) == .placeholder }.count == 444)
        #expect(RuleCase.all.filter { expectedOutcome($0) == .content }.count == 1152 - 144 - 118 - 444)
    }

    @Test(arguments: RuleCase.all)
    func decisionFollowsDesignRulesInOrder(_ c: RuleCase) throws {
        let expected = expectedOutcome(c)
        let presentation: Presentation
        do {
            presentation = try PresentationRules.presentation(
                for: c.context, timeline: Fixtures.timeline, placeholder: Fixtures.placeholder, now: Fixtures.at(30))
        } catch {
            #expect(expected == .unavailable)
            #expect(error == UnavailableOnSurface(surface: c.surface))
            return
        }
        #expect(presentation.luminanceReduced == (c.surface == .alwaysOn))
        #expect(presentation.stale == false)
        #expect(presentation.widget == Fixtures.widget)
        #expect(presentation.surface == c.surface)
        let balance = presentation.entry.fields["balance"]
        switch expected {
        case .unavailable:
            Issue.record("expected UnavailableOnSurface, got \(presentation.mode)")
        case .placeholder:
            #expect(presentation.mode == .placeholder)
            #expect(presentation.reasons == [.placeholder])
            #expect(presentation.entry.date == nil)
            #expect(presentation.validUntil == nil)
            #expect(balance == PresentedField(value: .string("— €"), redacted: true))
        case .redacted:
            #expect(presentation.mode == .redacted)
            #expect(presentation.reasons == [.privacy])
            #expect(presentation.entry.date == Fixtures.at(0))
            #expect(balance == PresentedField(value: .string("— €"), redacted: true))
            #expect(presentation.entry.fields["temp"] == PresentedField(value: .number(21.5)))
        case .content:
            #expect(presentation.mode == .content)
            #expect(presentation.reasons == [])
            #expect(presentation.entry.date == Fixtures.at(0))
            #expect(presentation.validUntil == Fixtures.at(600))
            #expect(balance == PresentedField(value: .string(Fixtures.secret), privacy: .sensitive))
        }
    }

    @Test(arguments: RuleCase.all)
    func phaseOneAsksForTheTimelineOnlyWhenItWillShowIt(_ c: RuleCase) {
        let decision = try? PresentationRules.decide(c.context)
        switch expectedOutcome(c) {
        case .unavailable: #expect(decision == nil)
        case .placeholder: #expect(decision == .placeholder && decision?.needsTimeline == false)
        case .redacted: #expect(decision == .redacted && decision?.needsTimeline == true)
        case .content: #expect(decision == .content && decision?.needsTimeline == true)
        }
    }

    @Test(arguments: PresentationDecision.allCases, [nil, Timeline(entries: [])] as [Timeline?])
    func ruleFourShowsThePlaceholderWithoutAReadableTimeline(decision: PresentationDecision, timeline: Timeline?) {
        let presentation = PresentationRules.present(
            decision, widget: Fixtures.widget, timeline: timeline, placeholder: Fixtures.placeholder,
            reloadDue: nil, surface: .homeScreen, now: Fixtures.t0, state: .unlocked)
        #expect(presentation.mode == .placeholder)
        #expect(presentation.reasons == [.placeholder])
        #expect(presentation.entry.fields.count == 3)
    }

    @Test func aPlaceholderDecisionNeverLooksAtTheTimeline() {
        let presentation = PresentationRules.present(
            .placeholder, widget: Fixtures.widget, timeline: Fixtures.timeline, placeholder: nil,
            reloadDue: nil, surface: .lockScreen, now: Fixtures.at(30), state: .unlocked)
        #expect(presentation.mode == .placeholder)
        #expect(presentation.entry == PresentedEntry(date: nil, relevance: nil, fields: [:]))
        #expect(presentation.validUntil == nil)
    }

    /// Shown with an entry, redacted too (from the class-`none` reload date, so also while
    /// locked); never on a placeholder, which must not tell when a hidden timeline ends
    /// (`PlaceholderHidesTimelineDatesRules`).
    @Test(arguments: PresentationDecision.allCases)
    func staleComesFromTheReloadDateEvenWhileLocked(decision: PresentationDecision) {
        for (now, due) in [(599.0, false), (600.0, true), (601.0, true)] {
            let presentation = PresentationRules.present(
                decision, widget: Fixtures.widget, timeline: decision.needsTimeline ? Fixtures.timeline : nil,
                placeholder: Fixtures.placeholder, reloadDue: Fixtures.at(600), surface: .alwaysOn, now: Fixtures.at(now), state: .unlocked)
            let base: [PresentationReason] = switch decision {
            case .placeholder: [.placeholder]
            case .redacted: [.privacy]
            case .content: []
            }
            let stale = due && decision != .placeholder
            #expect(presentation.stale == stale)
            // Due is not wrong: `invalidated` waits for `StaleAfterSec=` (below).
            #expect(presentation.reasons == base)
            #expect(presentation.luminanceReduced)
        }
        for (now, invalidated) in [(699.0, false), (700.0, true)] {
            let presentation = PresentationRules.present(
                decision, widget: Fixtures.widget, timeline: decision.needsTimeline ? Fixtures.timeline : nil,
                placeholder: Fixtures.placeholder, reloadDue: Fixtures.at(600), surface: .alwaysOn, now: Fixtures.at(now),
                state: .unlocked, staleAfter: 100)
            let shown = invalidated && decision != .placeholder
            #expect(presentation.reasons.contains(.invalidated) == shown)
        }
        let never = PresentationRules.present(
            decision, widget: Fixtures.widget, timeline: nil, placeholder: nil,
            reloadDue: nil, surface: .homeScreen, now: .distantFuture, state: .unlocked)
        #expect(!never.stale)
    }

    @Test func theStoredTimelinesOwnReloadDateMakesItStaleInTheOneCallForm() throws {
        let context = PresentationContext(
            widget: Fixtures.widget, surface: .homeScreen, state: .unlocked, passcodeSet: true,
            protectionClass: .none, settings: Settings())
        let presentation = try PresentationRules.presentation(
            for: context, timeline: Fixtures.timeline, placeholder: nil, now: Fixtures.at(600))
        #expect(presentation.mode == .content)
        #expect(presentation.stale)
        #expect(presentation.reasons == [])
        #expect(presentation.validUntil == nil)
    }
}
