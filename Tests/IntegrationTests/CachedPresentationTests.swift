import Foundation
import Testing

/// Presentations are cached between reads; every change a host must see still shows
/// on the very next read: a new timeline, a deletion, a lock, new settings.
@Suite struct CachedPresentationTests {
    let health = "com.example.health/rings"
    let weather = "com.example.weather/forecast"

    private func show(_ client: VarlinkTestClient, _ widget: String, _ surface: String = "homeScreen") throws -> [String: Any] {
        try client.ok("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": surface])
    }

    @Test func aNewTimelineShowsOnTheNextRead() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "FIRST"))
        #expect(Fixtures.field(try show(client, weather), "balance")["value"] as? String == "FIRST")
        #expect(Fixtures.field(try show(client, weather), "balance")["value"] as? String == "FIRST")
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "SECOND"))
        #expect(Fixtures.field(try show(client, weather), "balance")["value"] as? String == "SECOND")
        try client.ok("io.widgetd.Provider.DeleteTimeline", ["widget": weather])
        #expect(Fixtures.mode(try show(client, weather)) == "placeholder")
    }

    @Test func lockAndSettingsShowOnTheNextRead() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(health))
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        #expect(Fixtures.mode(try show(client, health)) == "content")
        #expect(Fixtures.mode(try show(client, weather, "lockScreen")) == "content")
        try client.ok("io.widgetd.Device.Lock")
        #expect(Fixtures.mode(try show(client, health)) != "content")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(Fixtures.mode(try show(client, health)) == "content")
        try client.ok("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false])
        try client.ok("io.widgetd.Device.Lock")
        #expect(Fixtures.mode(try show(client, weather, "lockScreen")) != "content")
    }
}
