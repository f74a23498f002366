import Foundation
import Testing
@testable import WidgetDaemon

/// The bounds on actions (DESIGN §13), on the manual scheduler: a provider holds at most
/// 64 unanswered actions, and one new timeline of a widget answers every action
/// delivered on it, however many.
@Suite struct ActionBoundsTests {
    static let widget = "com.example.clock/tap"

    static func put(_ harness: ServiceHarness) {
        harness.ok("io.widgetd.Provider.PutTimeline", [
            "widget": widget,
            "entries": [[
                "date": ServiceHarness.rfc3339(ServiceHarness.start.addingTimeInterval(-60)),
                "fields": ["t": ["value": "Tap", "role": "title"]],
                "actions": [["id": "tap", "title": "Tap", "kind": "button", "authentication": "alwaysAllowed"]],
            ]],
            "policy": ["kind": "never"],
        ])
    }

    /// Performs `count` taps, each from a host connection of its own (no connection
    /// passes its own bound), and returns each outcome or error.
    static func tap(_ harness: ServiceHarness, _ count: Int) -> [String] {
        (0..<count).map { _ in
            let call = harness.call("io.widgetd.Host.PerformAction", ["widget": widget, "surface": "homeScreen", "action": "tap"])
            return call.error ?? (call.parameters["outcome"] as? String ?? "?")
        }
    }

    @Test func oneNewTimelineAnswersEveryActionOnItsWidget() throws {
        let harness = try ServiceHarness()
        Self.put(harness)
        let provider = harness.call("io.widgetd.Provider.WatchActions", ["provider": "com.example.clock"], more: true)
        let first = Self.tap(harness, 70)
        #expect(first.prefix(64).allSatisfy { $0 == "delivered" })
        #expect(first.suffix(6).allSatisfy { $0 == "io.widgetd.TryAgainLater" })
        #expect(provider.replies.count == 64)
        // The provider answers once: all 64 are answered, and it has room for 64 again.
        Self.put(harness)
        let second = Self.tap(harness, 64)
        #expect(second.allSatisfy { $0 == "delivered" }, "\(second)")
    }
}
