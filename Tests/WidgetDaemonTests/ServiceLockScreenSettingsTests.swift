import Foundation
import Testing

@testable import WidgetDaemon

/// `hiddenLockScreenWidgets` (DESIGN §4 rule 5, §5 `SetSettings`): one widget redacted on
/// the locked lock screen while access stays on for the others.
@Suite struct ServiceLockScreenSettingsTests {
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!
    static let clock = ServiceHarness.widgets[.none]!

    @Test func aWidgetHiddenOnTheLockScreenIsRedactedThereWhileAccessIsOn() throws {
        let harness = try ServiceHarness()
        for widget in [Self.weather, Self.clock] { harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(widget)) }
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.weather, "surface": "lockScreen"], more: true)
        harness.ok("io.widgetd.Device.Lock")
        #expect(watch.mode == "content")

        let settings = harness.ok("io.widgetd.Device.SetSettings", ["hiddenLockScreenWidgets": [Self.weather]])["settings"] as? [String: Any]
        #expect(settings?["hiddenLockScreenWidgets"] as? [String] == [Self.weather])
        #expect(settings?["lockScreenWidgetsAccess"] as? Bool == true)
        // The watch follows at once; the others are untouched, and so is every other surface.
        #expect(watch.mode == "redacted")
        #expect(harness.mode(Self.weather, "lockScreen") == "redacted")
        #expect(harness.mode(Self.clock, "lockScreen") == "content")
        #expect(harness.mode(Self.weather, "alwaysOn") == "content")
        #expect(harness.mode(Self.weather, "homeScreen") == "content")
        let event = (monitor.parameters["event"] as? [String: Any])?["settings"] as? [String: Any]
        #expect(event?["hiddenLockScreenWidgets"] as? [String] == [Self.weather])

        // Kept across a restart, and shown again once the list is emptied.
        try harness.restart()
        let stored = harness.ok("io.widgetd.Device.GetSettings")["settings"] as? [String: Any]
        #expect(stored?["hiddenLockScreenWidgets"] as? [String] == [Self.weather])
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.mode(Self.weather, "lockScreen") == "redacted")
        harness.ok("io.widgetd.Device.SetSettings", ["hiddenLockScreenWidgets": [String]()])
        #expect(harness.mode(Self.weather, "lockScreen") == "content")
    }

    @Test func aHiddenLockScreenWidgetMustBeAWidgetID() throws {
        let harness = try ServiceHarness()
        let call = harness.call("io.widgetd.Device.SetSettings", ["hiddenLockScreenWidgets": ["not a widget"]])
        #expect(call.error == "org.varlink.service.InvalidParameter")
        #expect(call.parameters["parameter"] as? String == "hiddenLockScreenWidgets")
    }
}
