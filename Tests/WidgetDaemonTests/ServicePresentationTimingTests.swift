import Foundation
import Testing

@testable import WidgetDaemon

/// What watches are pushed as time passes, on the manual clock.
@Suite struct ServicePresentationTimingTests {
    static let health = ServiceHarness.widgets[.complete]!
    static let clock = ServiceHarness.widgets[.none]!

    /// A placeholder standing in for a locked timeline tells nothing of that timeline's
    /// dates (issue 13, defect 8): a host watching a locked class-A widget hears nothing
    /// when its last (secret) entry's date passes. A class-D widget with the same
    /// timeline, watched beside it, is the control: it turns stale at that instant.
    @Test func aWatchedLockedPlaceholderSendsNothingAtTheSecretTimelinesEnd() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        let now = harness.scheduler.now
        let end = now.addingTimeInterval(90)
        for widget in [Self.health, Self.clock] {
            // Every class is writable while locked.
            harness.ok("io.widgetd.Provider.PutTimeline", [
                "widget": widget, "placeholder": ServiceHarness.placeholder, "policy": ["kind": "atEnd"],
                "entries": [ServiceHarness.entry(at: now.addingTimeInterval(-60)), ServiceHarness.entry(at: end, headline: "Last")],
            ])
        }
        let locked = harness.call("io.widgetd.Host.Watch", ["widget": Self.health, "surface": "homeScreen"], more: true)
        let first = try #require(locked.parameters["presentation"] as? [String: Any])
        #expect(first["mode"] as? String == "placeholder")
        #expect(first["stale"] as? Bool == false)
        #expect(first["validUntil"] == nil)
        let open = harness.call("io.widgetd.Host.Watch", ["widget": Self.clock, "surface": "homeScreen"], more: true)
        #expect((open.parameters["presentation"] as? [String: Any])?["stale"] as? Bool == false)

        harness.scheduler.advance(by: 91)
        #expect(open.replies.count == 2, "the class-D watch heard nothing at the end date")
        #expect((open.parameters["presentation"] as? [String: Any])?["stale"] as? Bool == true)
        #expect(locked.replies.count == 1, "the locked placeholder changed at the secret date: \(locked.replies)")
        let shown = harness.call("io.widgetd.Host.GetPresentation", ["widget": Self.health, "surface": "homeScreen"])
        #expect(NSDictionary(dictionary: shown.parameters["presentation"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: first))
    }
}
