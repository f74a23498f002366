import Foundation
import Testing

import WidgetModel
import WidgetdPOSIX
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

    /// A provider that names itself hears only its own widgets' requests, even as an
    /// administrator (on a per-user instance every app runs as the owner, who is one):
    /// a clock answering `ReloadTimelines()` must not rewrite the mail.
    @Test func watchReloadsNamingAProviderHearsOnlyItsWidgets() throws {
        let harness = try ServiceHarness()
        harness.putEveryClass()
        let clock = harness.call("io.widgetd.Provider.WatchReloads", ["provider": "com.example.clock"], more: true)
        let everyone = harness.call("io.widgetd.Provider.WatchReloads", more: true)
        harness.ok("io.widgetd.Host.ReloadTimelines")
        #expect(clock.replies.compactMap { ($0["parameters"] as? [String: Any])?["widget"] as? String } == ["com.example.clock/world"])
        #expect(everyone.replies.count == ServiceHarness.widgets.count)
    }

    /// Who may name which provider: one's own, or any registered one as an administrator;
    /// refused as a write to that provider's widget would be.
    @Test(arguments: [
        (uid: UInt32(1000), provider: "com.example.clock", error: String?.none),
        (uid: 1000, provider: "com.example.weather", error: "io.widgetd.PermissionDenied"),
        (uid: 1000, provider: "com.example.nothing", error: "io.widgetd.PermissionDenied"),
        (uid: 0, provider: "com.example.weather", error: nil),
        (uid: 0, provider: "com.example.nothing", error: "io.widgetd.ProviderNotRegistered"),
        (uid: 0, provider: "com/example", error: "org.varlink.service.InvalidParameter"),
    ])
    func watchReloadsNamesOnlyAProviderTheCallerMayProvide(uid: UInt32, provider: String, error: String?) throws {
        let harness = try ServiceHarness {
            $0.providers = $0.providers.map { registration in
                var registration = registration
                if registration.id == "com.example.clock" { registration.uid = 1000 }
                return registration
            }
        }
        let watch = harness.call(
            "io.widgetd.Provider.WatchReloads", ["provider": provider], more: true, peer: PeerCredentials(pid: 1, uid: uid, gid: uid))
        #expect(watch.error == error)
        if error == "io.widgetd.PermissionDenied" {
            #expect(watch.parameters["provider"] as? String == provider)
        }
    }
}
