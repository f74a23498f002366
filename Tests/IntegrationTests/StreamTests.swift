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
