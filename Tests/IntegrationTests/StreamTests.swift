import Foundation
import Testing

/// `Watch`, `WatchReloads` and `Monitor`: the streams that push changes (DESIGN §5).
@Suite struct StreamTests {
    let weather = "com.example.weather/forecast"

    @Test func watchPushesOnWriteLockUnlockAndSettings() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "first"))

        let watcher = try daemon.client()
        try watcher.send("io.widgetd.Host.Watch", ["widget": weather, "surface": "lockScreen"], more: true)
        let initial = try watcher.receive()
        #expect(initial.continues)
        #expect(Fixtures.field(initial.parameters, "balance")["value"] as? String == "first")

        try control.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather, secret: "second"))
        #expect(Fixtures.field(try watcher.receive().parameters, "balance")["value"] as? String == "second")

        try control.ok("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false])
        // Unlocked, the setting does not change the lock screen: nothing is pushed for it.
        try control.ok("io.widgetd.Device.Lock")
        #expect(Fixtures.mode(try watcher.receive().parameters) == "redacted")

        try control.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(Fixtures.mode(try watcher.receive().parameters) == "content")
    }

    @Test func watchPushesWhenTheNextEntryDateArrives() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        let now = Date()
        try client.ok("io.widgetd.Provider.PutTimeline", [
            "widget": weather,
            "entries": [
                Fixtures.entry(at: now.addingTimeInterval(-10), headline: "Now"),
                // 3 s ahead: under a loaded parallel run the first reply once took more
                // than 1 s and already showed the next entry.
                Fixtures.entry(at: now.addingTimeInterval(3), headline: "Next"),
            ],
            "policy": ["kind": "never"],
        ])
        let watcher = try daemon.client()
        try watcher.send("io.widgetd.Host.Watch", ["widget": weather, "surface": "homeScreen"], more: true)
        #expect(Fixtures.field(try watcher.receive().parameters, "headline")["value"] as? String == "Now")
        // The daemon's own timer pushes the next entry; the client just waits for it.
        #expect(Fixtures.field(try watcher.receive().parameters, "headline")["value"] as? String == "Next")
    }

    /// A stream call has no first reply, so the test cannot know when the daemon has
    /// registered it: it asks again (ReloadTimelines) until the stream hears something.
    private func firstReload(on stream: VarlinkTestClient, asking client: VarlinkTestClient, _ parameters: [String: Any]) throws -> [String: Any] {
        for _ in 0..<30 {
            try client.ok("io.widgetd.Host.ReloadTimelines", parameters)
            if let reply = stream.receive(within: 1) { return reply.parameters }
        }
        throw VarlinkTestClient.Failure(description: "no reload request heard")
    }

    @Test func watchReloadsHearsRequestedAndDueReloadsOnce() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        let reloads = try daemon.client()
        try reloads.send("io.widgetd.Provider.WatchReloads", more: true)

        let requested = try firstReload(on: reloads, asking: client, ["provider": "com.example.weather"])
        #expect(requested["widget"] as? String == weather)
        #expect(requested["reason"] as? String == "requested")

        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(
            weather, policy: ["kind": "after", "date": Fixtures.rfc3339(Date().addingTimeInterval(1))]))
        var due: VarlinkTestClient.Reply
        repeat { due = try reloads.receive() } while due.parameters["reason"] as? String == "requested"
        #expect(due.parameters["reason"] as? String == "due")
        #expect(due.parameters["widget"] as? String == weather)

        // Once per due reload: a later WatchReloads does not hear it again; the first
        // thing it hears is a new request.
        let late = try daemon.client()
        try late.send("io.widgetd.Provider.WatchReloads", more: true)
        let first = try firstReload(on: late, asking: client, ["kind": "forecast"])
        #expect(first["reason"] as? String == "requested")
    }

    @Test func watchReloadsWithoutMoreIsRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        #expect(try daemon.client().call("io.widgetd.Provider.WatchReloads").error == "org.varlink.service.ExpectedMore")
    }

    @Test func monitorFollowsStateAndSettings() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        let monitor = try daemon.client()
        try monitor.send("io.widgetd.Device.Monitor", more: true)
        let first = try monitor.receive().parameters["event"] as? [String: Any]
        #expect(first?["state"] as? String == "unlocked")
        try control.ok("io.widgetd.Device.Lock")
        let locked = try monitor.receive().parameters["event"] as? [String: Any]
        #expect(locked?["kind"] as? String == "state")
        #expect(locked?["state"] as? String == "locked")
        try control.ok("io.widgetd.Device.SetSettings", ["hideSensitiveComplications": "all"])
        let changed = try monitor.receive().parameters["event"] as? [String: Any]
        #expect(changed?["kind"] as? String == "settings")
    }
}
