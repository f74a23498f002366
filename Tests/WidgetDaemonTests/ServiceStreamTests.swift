import Foundation
import Testing

import WidgetModel
@testable import WidgetDaemon

/// `Watch` and `WatchReloads` pushes that time brings, on the manual clock.
@Suite struct ServiceStreamTests {
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!

    static func headline(_ call: ServiceHarness.Call) -> String? {
        let entry = (call.parameters["presentation"] as? [String: Any])?["entry"] as? [String: Any]
        return ((entry?["fields"] as? [String: Any])?["headline"] as? [String: Any])?["value"] as? String
    }

    @Test func watchPushesWhenTheNextEntryDateArrives() throws {
        let harness = try ServiceHarness()
        let now = harness.scheduler.now
        harness.ok("io.widgetd.Provider.PutTimeline", [
            "widget": Self.weather, "policy": ["kind": "never"],
            "entries": [ServiceHarness.entry(at: now.addingTimeInterval(-10), headline: "Now"),
                        ServiceHarness.entry(at: now.addingTimeInterval(3), headline: "Next")],
        ])
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.weather, "surface": "homeScreen"], more: true)
        #expect(Self.headline(watch) == "Now")
        harness.scheduler.advance(by: 2.9)
        #expect(watch.replies.count == 1)
        // The service's own wake timer pushes the next entry at its date.
        harness.scheduler.advance(by: 0.1)
        #expect(watch.replies.count == 2)
        #expect(Self.headline(watch) == "Next")
    }

    @Test func aWatchKeepsNoCopyOfThePresentationItSent() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather))
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.weather, "surface": "homeScreen"], more: true)
        #expect(watch.replies.count == 1)
        // What it showed may be decrypted content: a watch remembers a digest of it only.
        let kept = try #require(harness.service.timelines.subscriptions.watches.first)
        for child in Mirror(reflecting: kept).children {
            #expect(!(child.value is Presentation) && !(child.value is Presentation?), "\(child.label ?? "?") holds a presentation")
        }
    }

    @Test func aWatchIsSentNothingWhenARefreshShowsTheSame() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather))
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.weather, "surface": "homeScreen"], more: true)
        harness.service.timelines.refreshWatches(nil)
        #expect(watch.replies.count == 1)
        // A change is still sent.
        harness.ok("io.widgetd.Provider.PutTimeline", [
            "widget": Self.weather, "entries": [ServiceHarness.entry(at: harness.scheduler.now.addingTimeInterval(-1), headline: "Changed")],
        ])
        #expect(watch.replies.count == 2)
        #expect(Self.headline(watch) == "Changed")
        harness.service.timelines.refreshWatches(nil)
        #expect(watch.replies.count == 2)
    }

    @Test func watchReloadsHearsRequestedAndDueReloadsOnce() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather))
        let reloads = harness.call("io.widgetd.Provider.WatchReloads", more: true)
        harness.ok("io.widgetd.Host.ReloadTimelines", ["provider": "com.example.weather"])
        #expect(reloads.parameters["widget"] as? String == Self.weather)
        #expect(reloads.parameters["reason"] as? String == "requested")

        var parameters = harness.putParameters(Self.weather)
        parameters["policy"] = ["kind": "after", "date": ServiceHarness.rfc3339(harness.scheduler.now.addingTimeInterval(1))]
        harness.ok("io.widgetd.Provider.PutTimeline", parameters)
        let heard = reloads.replies.count
        harness.scheduler.advance(by: 1)
        #expect(reloads.replies.count == heard + 1)
        #expect(reloads.parameters["reason"] as? String == "due")
        #expect(reloads.parameters["widget"] as? String == Self.weather)

        // Once per due reload: a later WatchReloads does not hear it again; the first
        // thing it hears is a new request.
        let late = harness.call("io.widgetd.Provider.WatchReloads", more: true)
        harness.scheduler.advance(by: 60)
        #expect(late.replies.isEmpty)
        harness.ok("io.widgetd.Host.ReloadTimelines", ["kind": "forecast"])
        #expect(late.replies.count == 1)
        #expect(late.parameters["reason"] as? String == "requested")
    }
}
