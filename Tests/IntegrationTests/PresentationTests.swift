import Foundation
import Testing

/// What a host is shown (DESIGN §4), over the socket: one case per rule, each surface.
@Suite struct PresentationTests {
    let weather = "com.example.weather/forecast"
    let health = "com.example.health/rings"
    let mail = "com.example.mail/inbox"
    let clock = "com.example.clock/world"

    /// A daemon with a passcode and one timeline per class, locked or not.
    private func daemon(locked: Bool) throws -> (DaemonProcess, VarlinkTestClient) {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        for widget in [weather, health, mail, clock] {
            try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(widget))
        }
        if locked { try client.ok("io.widgetd.Device.Lock") }
        return (daemon, client)
    }

    private func show(_ client: VarlinkTestClient, _ widget: String, _ surface: String) throws -> VarlinkTestClient.Reply {
        try client.call("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": surface])
    }

    @Test(arguments: ["homeScreen", "lockScreen", "alwaysOn"])
    func unlockedShowsContentExceptRedactionsOnAlwaysOn(surface: String) throws {
        let (daemon, client) = try daemon(locked: false)
        _ = daemon
        let shown = try show(client, weather, surface).parameters
        let presentation = Fixtures.presentation(shown)
        #expect(Fixtures.mode(shown) == "content")
        #expect(presentation["luminanceReduced"] as? Bool == (surface == "alwaysOn"))
        #expect(Fixtures.field(shown, "balance")["value"] as? String == "SECRET-4711")
        #expect(presentation["validUntil"] as? String != nil)
    }

    @Test func remoteSurfaceRefusesClassesAAndB() throws {
        let (daemon, client) = try daemon(locked: false)
        _ = daemon
        #expect(try show(client, health, "remote").error == "io.widgetd.UnavailableOnSurface")
        #expect(try show(client, mail, "remote").error == "io.widgetd.UnavailableOnSurface")
        #expect(Fixtures.mode(try show(client, weather, "remote").parameters) == "content")
    }

    @Test func lockedShowsPlaceholdersForClassesAAndBWithNoTimelineData() throws {
        let (daemon, client) = try daemon(locked: true)
        _ = daemon
        for widget in [health, mail] {
            let reply = try show(client, widget, "homeScreen")
            let text = String(decoding: try JSONSerialization.data(withJSONObject: reply.object), as: UTF8.self)
            #expect(Fixtures.mode(reply.parameters) == "placeholder")
            #expect(!text.contains("SECRET-4711"))
            #expect(!text.contains("Sunny"))
            #expect(Fixtures.field(reply.parameters, "balance")["redacted"] as? Bool == true)
            #expect(Fixtures.field(reply.parameters, "title")["value"] as? String == "Weather")
        }
    }

    @Test func lockedLockScreenRedactsSensitiveFieldsOnlyWhenAccessIsOff() throws {
        let (daemon, client) = try daemon(locked: true)
        _ = daemon
        #expect(Fixtures.mode(try show(client, weather, "lockScreen").parameters) == "content")
        try client.ok("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false])
        let redacted = try show(client, weather, "lockScreen").parameters
        #expect(Fixtures.mode(redacted) == "redacted")
        #expect(Fixtures.field(redacted, "balance") as NSDictionary == ["value": "—", "redacted": true] as NSDictionary)
        #expect(Fixtures.field(redacted, "headline")["value"] as? String == "Sunny")
        #expect(Fixtures.mode(try show(client, weather, "homeScreen").parameters) == "content")
    }

    @Test func hideSensitiveComplicationsRedactsAlwaysOnForSelectedWidgets() throws {
        let (daemon, client) = try daemon(locked: false)
        _ = daemon
        try client.ok("io.widgetd.Device.SetSettings", [
            "hideSensitiveComplications": "selected", "hiddenComplications": [clock],
        ])
        #expect(Fixtures.mode(try show(client, clock, "alwaysOn").parameters) == "redacted")
        #expect(Fixtures.mode(try show(client, weather, "alwaysOn").parameters) == "content")
        try client.ok("io.widgetd.Device.SetSettings", ["hideSensitiveComplications": "all"])
        #expect(Fixtures.mode(try show(client, weather, "alwaysOn").parameters) == "redacted")
        let settings = try client.ok("io.widgetd.Device.GetSettings")["settings"] as? [String: Any]
        #expect(settings?["hideSensitiveComplications"] as? String == "all")
    }

    @Test func beforeFirstUnlockEvenClassNoneShowsItsPlaceholder() throws {
        let (daemon, _) = try daemon(locked: false)
        daemon.stop()
        try daemon.start()
        let client = try daemon.client()
        #expect(Fixtures.mode(try show(client, clock, "homeScreen").parameters) == "placeholder")
        // Listing works in every state.
        let widgets = try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [[String: Any]] ?? []
        #expect(Set(widgets.compactMap { $0["widget"] as? String }) == [weather, health, mail, clock])
        #expect(widgets.first { $0["widget"] as? String == health }?["class"] as? String == "complete")
    }

    @Test func aRegisteredWidgetWithNoTimelineShowsAnEmptyPlaceholder() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        let shown = try show(client, "com.example.weather/never-written", "homeScreen").parameters
        #expect(Fixtures.mode(shown) == "placeholder")
        #expect(try show(client, "org.unknown/x", "homeScreen").error == "io.widgetd.WidgetNotFound")
    }

    /// A due reload makes the content stale, not wrong (DESIGN §4): `invalidated` only
    /// once the reload has gone unanswered for `StaleAfterSec=`.
    @Test(arguments: [("1h", false), ("30min", true)])
    func staleTimelinesAreInvalidatedOnlyAfterStaleAfterSec(staleAfter: String, invalidated: Bool) throws {
        let daemon = try DaemonProcess(daemon: ["StaleAfterSec=\(staleAfter)"])
        try daemon.start()
        let client = try daemon.client()
        let past = Date().addingTimeInterval(-3600)
        // Due 59 minutes ago.
        try client.ok("io.widgetd.Provider.PutTimeline", [
            "widget": weather, "entries": [Fixtures.entry(at: past)],
            "policy": ["kind": "after", "date": Fixtures.rfc3339(past.addingTimeInterval(60))],
        ])
        let shown = Fixtures.presentation(try show(client, weather, "homeScreen").parameters)
        #expect(shown["stale"] as? Bool == true)
        #expect((shown["reasons"] as? [String])?.contains("invalidated") == invalidated)
    }

    @Test func providerInputIsValidated() throws {
        let daemon = try DaemonProcess(daemon: ["MaxTimelineBytes=4096"])
        try daemon.start()
        let client = try daemon.client()
        let bad = try client.call("io.widgetd.Provider.PutTimeline", [
            "widget": weather, "entries": [["date": "yesterday", "fields": [:]]],
        ])
        #expect(bad.error == "io.widgetd.InvalidTimeline")
        #expect((bad.parameters["reason"] as? String)?.contains("entries[0]") == true)
        let large = try client.call("io.widgetd.Provider.PutTimeline", [
            "widget": weather,
            "entries": (0..<40).map { Fixtures.entry(at: Date().addingTimeInterval(Double($0) * 60), secret: String(repeating: "x", count: 200)) },
        ])
        #expect(large.error == "io.widgetd.TooLarge")
        #expect(try client.call("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("org.unregistered/w")).error
            == "io.widgetd.ProviderNotRegistered")
        #expect(try client.call("io.widgetd.Provider.PutTimeline", Fixtures.putParameters("../etc/passwd")).error
            == "org.varlink.service.InvalidParameter")
    }

    @Test func appendEntriesExtendsAndGetTimelineReturnsTheProvidersView() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        let first = try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        let second = try client.ok("io.widgetd.Provider.AppendEntries", [
            "widget": weather, "entries": [Fixtures.entry(at: Date().addingTimeInterval(7200), headline: "Snow")],
        ])
        #expect((second["generation"] as? Int ?? 0) > (first["generation"] as? Int ?? 0))
        let timeline = try client.ok("io.widgetd.Provider.GetTimeline", ["widget": weather])
        #expect((timeline["entries"] as? [Any])?.count == 3)
        #expect(timeline["family"] as? String == "systemSmall")
        #expect((timeline["policy"] as? [String: Any])?["kind"] as? String == "atEnd")
        try client.ok("io.widgetd.Provider.DeleteTimeline", ["widget": weather])
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": weather]).error == "io.widgetd.WidgetNotFound")
    }
}
