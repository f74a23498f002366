import Foundation
import Testing

/// After a restart the daemon answers from the index it rebuilds from the verified
/// files: the listing, the placeholder before the first unlock, and each due reload
/// announced once (DESIGN §2, §4, §5).
@Suite struct RestartIndexTests {
    let weather = "com.example.weather/forecast"
    let clock = "com.example.clock/face#lock-1"

    @Test func aRestartedDaemonListsShowsPlaceholdersAndAnnouncesADueReloadOnce() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        // Due a minute ago, while nobody listens: nothing is announced yet.
        try client.ok(
            "io.widgetd.Provider.PutTimeline",
            Fixtures.putParameters(weather, policy: ["kind": "after", "date": Fixtures.rfc3339(Date().addingTimeInterval(-60))]))
        var clockTimeline = Fixtures.putParameters(clock, policy: ["kind": "never"])
        clockTimeline["family"] = "accessoryCircular"
        try client.ok("io.widgetd.Provider.PutTimeline", clockTimeline)
        daemon.stop()
        try daemon.start()

        let reloads = try daemon.client()
        try reloads.send("io.widgetd.Provider.WatchReloads", more: true)
        let due = try reloads.receive().parameters
        #expect(due["widget"] as? String == weather)
        #expect(due["reason"] as? String == "due")

        let host = try daemon.client()
        let listed = try #require(host.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [[String: Any]])
        #expect(listed.map { $0["widget"] as? String } == [clock, weather])
        #expect(listed.map { $0["family"] as? String } == ["accessoryCircular", "systemSmall"])
        #expect(listed.map { $0["class"] as? String } == ["none", "completeUntilFirstUserAuthentication"])
        #expect(listed.map { $0["generation"] as? Int } == [1, 1])

        // Before the first unlock every class shows its placeholder, read back from the file.
        let shown = try host.ok("io.widgetd.Host.GetPresentation", ["widget": weather, "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "placeholder")
        #expect(Fixtures.field(shown, "headline")["value"] as? String == "Loading")

        // Once per due reload: a later listener first hears a new request, not the due one.
        let late = try daemon.client()
        try late.send("io.widgetd.Provider.WatchReloads", more: true)
        var first: [String: Any]?
        for _ in 0..<30 where first == nil {
            // A stream call has no first reply: ask until the stream hears something.
            try host.ok("io.widgetd.Host.ReloadTimelines", ["provider": "com.example.weather"])
            first = late.receive(within: 1)?.parameters
        }
        #expect(first?["reason"] as? String == "requested")
        #expect(first?["widget"] as? String == weather)
    }
}
