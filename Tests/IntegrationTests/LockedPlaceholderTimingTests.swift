import Foundation
import Testing

/// A placeholder standing in for a locked timeline tells nothing of that timeline's
/// dates (issue 13, defect 8): a host watching a locked class-A widget hears nothing
/// when its last (secret) entry's date passes, where before the placeholder turned
/// `stale` at exactly that instant.
///
/// Real time, kept short: the last entry is 1.5 s ahead. A class-D widget with the
/// same timeline, watched beside it, is the control: it must turn stale, which proves
/// the daemon's clock passed the date while the class-A watch stayed silent.
@Suite struct LockedPlaceholderTimingTests {
    let health = "com.example.health/rings"
    let clock = "com.example.clock/world"

    @Test func aWatchedLockedPlaceholderSendsNothingAtTheSecretTimelinesEnd() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let control = try daemon.client()
        try control.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try control.ok("io.widgetd.Device.Lock")
        let now = Date()
        let end = now.addingTimeInterval(1.5)
        for widget in [health, clock] {
            // Every class is writable while locked.
            try control.ok("io.widgetd.Provider.PutTimeline", [
                "widget": widget,
                "entries": [Fixtures.entry(at: now.addingTimeInterval(-60)), Fixtures.entry(at: end, headline: "Last")],
                "placeholder": Fixtures.placeholder,
                "policy": ["kind": "atEnd"],
            ])
        }

        let locked = try daemon.client()
        try locked.send("io.widgetd.Host.Watch", ["widget": health, "surface": "homeScreen"], more: true)
        let first = Fixtures.presentation(try locked.receive().parameters)
        #expect(first["mode"] as? String == "placeholder")
        #expect(first["stale"] as? Bool == false)
        #expect(first["reasons"] as? [String] == ["placeholder"])
        #expect(first["validUntil"] == nil)

        let open = try daemon.client()
        try open.send("io.widgetd.Host.Watch", ["widget": clock, "surface": "homeScreen"], more: true)
        #expect(Fixtures.presentation(try open.receive().parameters)["stale"] as? Bool == false)
        // The control turns stale at the end (its entry "Last" is shown from then on).
        let turned = try #require(open.receive(within: 10), "the class-D watch heard nothing at the end date")
        #expect(Fixtures.presentation(turned.parameters)["stale"] as? Bool == true)

        // Pushed in the same wake-up as the control's, had it been pushed at all.
        let leaked = locked.receive(within: 1)
        #expect(leaked == nil, "the locked placeholder changed at the secret date: \(leaked?.parameters ?? [:])")
        let shown = Fixtures.presentation(try control.ok("io.widgetd.Host.GetPresentation", ["widget": health, "surface": "homeScreen"]))
        let bytes = { (object: [String: Any]) in try JSONSerialization.data(withJSONObject: object, options: .sortedKeys) }
        #expect(try bytes(shown) == bytes(first))
    }
}
