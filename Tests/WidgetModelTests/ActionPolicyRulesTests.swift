import Foundation
import StrictJSON
import Testing
@testable import WidgetModel

/// DESIGN §13: what an action may be, and what a presentation says of it — row by row
/// of the authentication policy table, and the redaction of a sensitive title.
@Suite struct ActionPolicyRulesTests {
    private func reason(actions: String) -> String? {
        let json = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":\#(actions)}]}"#
        do {
            _ = try Timeline.decode(from: Fixtures.json(json))
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func acceptsButtonsAndToggles() {
        #expect(reason(actions: #"[{"id":"open","title":"Open","kind":"button"},{"id":"play","title":"Play","kind":"toggle","isOn":false,"authentication":"alwaysAllowed","icon":"media-playback-start"}]"#) == nil)
    }

    @Test func anActionWithoutAPolicyRequiresAuthentication() throws {
        let json = #"{"entries":[{"date":"2026-01-01T00:00:00Z","fields":{},"actions":[{"id":"open","title":"Open","kind":"button"}]}]}"#
        let timeline = try Timeline.decode(from: Fixtures.json(json))
        #expect(timeline.entries[0].actions[0].authentication == .requiresAuthentication)
    }

    @Test(arguments: [
        (#"[{"id":"a","title":"A","kind":"button"},{"id":"a","title":"B","kind":"button"}]"#, #"entries[0].actions[1]: id "a" is given twice"#),
        (#"[{"id":"a","title":"A","kind":"toggle"}]"#, #"entries[0].actions[0]: a toggle needs "isOn""#),
        (#"[{"id":"a","title":"A","kind":"button","isOn":true}]"#, #"entries[0].actions[0]: "isOn" is only allowed on a toggle"#),
        (#"[{"id":"a","title":"A","kind":"button","authentication":"whenever"}]"#, #"entries[0].actions[0].authentication: must be "alwaysAllowed", "requiresAuthentication" or "requiresLocalDeviceAuthentication""#),
        (#"[{"id":"a","title":"A","kind":"slider"}]"#, #"entries[0].actions[0].kind: must be "button" or "toggle""#),
        (#"[{"id":"a b","title":"A","kind":"button"}]"#, #"entries[0].actions[0]: id must be 1 to 64 bytes of letters, digits, ".", "_" or "-""#),
        (#"[{"id":"a","title":"","kind":"button"}]"#, #"entries[0].actions[0]: title must be 1 to 256 bytes"#),
        (#"[{"id":"a","title":"A\nB","kind":"button"}]"#, #"entries[0].actions[0]: title contains a control character"#),
        (#"[{"id":"a","title":"A","kind":"button","icon":"../x"}]"#, #"entries[0].actions[0]: icon must be an icon name: 1 to 64 bytes of a-z, 0-9 and "-" (never a path or URL)"#),
        (#"[{"id":"a","kind":"button"}]"#, #"entries[0].actions[0]: missing "title""#),
        (#"[{"id":"a","title":"A","kind":"button","extra":1}]"#, #"entries[0].actions[0]: unknown key "extra""#),
        ("[" + (0..<9).map { #"{"id":"a\#($0)","title":"A","kind":"button"}"# }.joined(separator: ",") + "]", "entries[0].actions: 9 actions; at most 8 are allowed"),
    ])
    func refusesWhatIsNotAnAction(actions: String, expected: String) {
        #expect(reason(actions: actions) == expected)
    }

    private static let open = WidgetAction(id: "open", title: "Open Mail", kind: .button, authentication: .requiresAuthentication)
    private static let play = WidgetAction(id: "play", title: "Play", kind: .toggle, isOn: false, authentication: .alwaysAllowed)
    private static let local = WidgetAction(id: "pay", title: "Pay", kind: .button, authentication: .requiresLocalDeviceAuthentication)

    private func presented(_ action: WidgetAction, state: DeviceState, surface: Surface = .lockScreen) -> PresentedAction? {
        let entry = Entry(date: Fixtures.at(0), fields: ["t": Field(value: .string("x"))], actions: [action])
        return PresentationRules.present(
            .content, widget: Fixtures.widget, timeline: Timeline(entries: [entry], policy: .never), placeholder: nil,
            reloadDue: nil, surface: surface, now: Fixtures.at(1), state: state
        ).actions.first
    }

    /// The policy table of DESIGN §13: `available` now, or `requires: "unlock"`.
    @Test(arguments: [
        (open, DeviceState.unlocked, Surface.lockScreen, true, nil as String?),
        (open, .locked, .lockScreen, false, "unlock"),
        (open, .beforeFirstUnlock, .lockScreen, false, "unlock"),
        (play, .unlocked, .lockScreen, true, nil),
        (play, .locked, .lockScreen, true, nil),
        (play, .beforeFirstUnlock, .lockScreen, true, nil),
        (local, .unlocked, .lockScreen, true, nil),
        (local, .locked, .lockScreen, false, "unlock"),
        (local, .unlocked, .remote, false, nil),
        (open, .unlocked, .remote, true, nil),
        (play, .locked, .remote, true, nil),
    ])
    func availabilityFollowsThePolicyTable(
        action: WidgetAction, state: DeviceState, surface: Surface, available: Bool, requires: String?
    ) throws {
        let shown = try #require(presented(action, state: state, surface: surface))
        #expect(shown.available == available)
        #expect(shown.requires == requires)
        #expect(shown.title == action.title && !shown.redacted)
    }

    @Test func aSensitiveTitleIsRedactedAsAFieldIs() throws {
        var secret = Self.open
        secret.privacy = .sensitive
        secret.title = "Reply to Alice"
        let entry = Entry(date: Fixtures.at(0), fields: [:], actions: [secret, Self.play])
        let placeholder = Placeholder(fields: [:], actions: [WidgetAction(id: "open", title: "Open", kind: .button)])
        let redacted = PresentationRules.present(
            .redacted, widget: Fixtures.widget, timeline: Timeline(entries: [entry], policy: .never), placeholder: placeholder,
            reloadDue: nil, surface: .lockScreen, now: Fixtures.at(1), state: .locked)
        #expect(redacted.actions.map(\.title) == ["Open", "Play"])
        #expect(redacted.actions.map(\.redacted) == [true, false])
        let bytes = JSONWriter.bytes { redacted.write(to: &$0) }
        #expect(!String(decoding: bytes, as: UTF8.self).contains("Alice"))
        // No stand-in: the title is null.
        let bare = PresentationRules.present(
            .redacted, widget: Fixtures.widget, timeline: Timeline(entries: [entry], policy: .never), placeholder: nil,
            reloadDue: nil, surface: .lockScreen, now: Fixtures.at(1), state: .locked)
        #expect(bare.actions[0].title == nil && bare.actions[0].redacted)
    }

    @Test func aPlaceholderShowsOnlyThePlaceholdersActions() {
        let entry = Entry(date: Fixtures.at(0), fields: [:], actions: [Self.open])
        let placeholder = Placeholder(fields: [:], actions: [Self.play])
        let shown = PresentationRules.present(
            .placeholder, widget: Fixtures.widget, timeline: Timeline(entries: [entry], policy: .never),
            placeholder: placeholder, reloadDue: nil, surface: .lockScreen, now: Fixtures.at(1), state: .locked)
        #expect(shown.actions.map(\.id) == ["play"])
    }

    @Test func actionsRoundTripThroughTheCanonicalBodyAndTheWire() throws {
        let entry = Entry(date: Fixtures.at(0), fields: ["t": Field(value: .string("x"), role: .title)], actions: [Self.open, Self.play])
        let timeline = Timeline(entries: [entry], policy: .never)
        let body = JSONWriter.bytes { timeline.write(to: &$0) }
        #expect(try body.withUnsafeBytes { try Timeline.decode(from: $0) } == timeline)
        #expect(try JSONDecoder().decode(Timeline.self, from: Data(body)) == timeline)
        let presentation = PresentationRules.present(
            .content, widget: Fixtures.widget, timeline: timeline, placeholder: nil, reloadDue: nil, surface: .homeScreen,
            now: Fixtures.at(1), state: .locked)
        let written = JSONWriter.bytes { presentation.write(to: &$0) }
        #expect(written == (try JSONTreeEncoder.bytes(presentation)))
        #expect(try JSONDecoder().decode(Presentation.self, from: Data(written)) == presentation)
    }
}
