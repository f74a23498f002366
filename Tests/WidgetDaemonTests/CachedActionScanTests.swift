import FoundationEssentials
import Testing
@testable import WidgetDaemon
import WidgetdWire
import WidgetModel

/// `PerformAction` reads the action from the reply `GetPresentation` would answer from
/// its cache (`CachedActionScan`); what it reads must be what presenting the widget anew
/// gives, in every decision, surface and lock state, and it must never find an action
/// the reply does not show.
@Suite struct CachedActionScanTests {
    static let timeline = try! Timeline.decode(from: Array(#"""
        {"entries":[{"date":"2026-01-01T00:00:00Z",
          "fields":{"t":{"value":"Now","role":"title"}},
          "actions":[
            {"id":"play","title":"Play","kind":"toggle","isOn":true,"authentication":"alwaysAllowed"},
            {"id":"open","title":"Open the secret","kind":"button","privacy":"sensitive","icon":"document-open",
             "authentication":"requiresAuthentication"},
            {"id":"pay","title":"Pay \"now\"","kind":"toggle","isOn":false,"authentication":"requiresLocalDeviceAuthentication"},
            {"id":"a.b-c_9","title":"Dotted id","kind":"button","authentication":"alwaysAllowed"}]}],
         "policy":{"kind":"never"}}
        """#.utf8))

    static let placeholder = try! Placeholder.decode(from: Array(#"""
        {"fields":{"t":{"value":"Player","privacy":"public"}},
         "actions":[{"id":"launch","title":"Launch","kind":"button","authentication":"alwaysAllowed"}]}
        """#.utf8))

    static let widget = try! WidgetID("com.example/player")

    static var presentations: [Presentation] {
        var all: [Presentation] = []
        for decision in PresentationDecision.allCases {
            for surface in Surface.allCases {
                for state in [DeviceState.unlocked, .locked] {
                    all.append(PresentationRules.present(
                        decision, widget: widget, timeline: timeline, placeholder: placeholder, reloadDue: nil,
                        surface: surface, now: Date(timeIntervalSince1970: 1_767_225_601), state: state))
                }
            }
        }
        return all
    }

    @Test func readsEveryShownActionAsPresented() {
        var shownSomewhere = 0
        for presentation in Self.presentations {
            let reply = ExactReply.encode(presentation: presentation)
            for id in ["play", "open", "pay", "launch", "a.b-c_9", "absent", "pla"] {
                let scanned = reply.withUnsafeBytes { CachedActionScan.action(id, in: $0) }
                let shown = presentation.actions.first { $0.id == id }
                switch scanned {
                case .shown(let action):
                    guard let shown else {
                        Issue.record("\(id) found in a reply that does not show it")
                        continue
                    }
                    shownSomewhere += 1
                    #expect(action.title == nil, "a title read from the cache")
                    #expect(action.icon == nil)
                    var expected = shown
                    expected.title = nil
                    expected.icon = nil
                    #expect(action == expected)
                case .notShown:
                    #expect(shown == nil, "\(id) shown but not found")
                case .unknown:
                    // Ids are plain (letters, digits, ".", "_", "-"): never written with
                    // escapes, so every reply this daemon writes is read here.
                    Issue.record("\(id): unknown")
                }
            }
        }
        #expect(shownSomewhere > 20)
    }

    @Test func aReplyWithoutActionsShowsNone() {
        let presentation = PresentationRules.present(
            .placeholder, widget: Self.widget, timeline: nil, placeholder: nil, reloadDue: nil, surface: .lockScreen,
            now: Date(timeIntervalSince1970: 1_767_225_601), state: .locked)
        let reply = ExactReply.encode(presentation: presentation)
        #expect(reply.withUnsafeBytes { CachedActionScan.action("play", in: $0) } == .notShown)
    }

    @Test func anythingElseIsLeftToThePresentation() {
        for text in ["", "{", #"{"error":"x"}"#, #"{"parameters":{"presentation":{"actions":[{"id":"play"}]}}}"#] {
            let outcome = Array(text.utf8).withUnsafeBytes { CachedActionScan.action("play", in: $0) }
            #expect(outcome == .unknown || outcome == .notShown, "\(text)")
        }
        // An action with no kind or policy is not one this daemon wrote: never `shown`.
        let odd = Array(#"{"parameters":{"presentation":{"actions":[{"id":"play"}]}}}"#.utf8)
        #expect(odd.withUnsafeBytes { CachedActionScan.action("play", in: $0) } == .unknown)
    }

    @Test func actionMessagesAreTheBytesOfTheEncodablePath() {
        for continues in [false, true] {
            for isOn in [nil, true, false] {
                for whileLocked in [false, true] {
                    let delivery = ActionDelivery(
                        id: UInt64.max - 3, widget: #"com.example/odd"kind"#, action: "a\\b ☃", isOn: isOn,
                        surface: "lockScreen", whileLocked: whileLocked)
                    #expect(ExactReply.encode(written: delivery, continues: continues)
                        == ExactReply.encode(parameters: delivery, continues: continues))
                }
            }
            for outcome in [ActionOutcome.delivered, .held, .expired] {
                let reply = PerformActionReply(outcome: outcome)
                #expect(ExactReply.encode(written: reply, continues: continues)
                    == ExactReply.encode(parameters: reply, continues: continues))
            }
        }
    }
}
