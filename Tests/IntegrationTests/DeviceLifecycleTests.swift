import Foundation
import Testing

/// The lock lifecycle of DESIGN §3, driven over the socket against the real daemon.
@Suite struct DeviceLifecycleTests {
    let weather = "com.example.weather/forecast#lock-1"
    let health = "com.example.health/rings"
    let mail = "com.example.mail/inbox"
    let clock = "com.example.clock/world"

    @Test func withoutPasscodeTheDeviceUnlocksByItselfAtStart() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let status = try daemon.client().ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "unlocked")
        #expect(status["passcodeSet"] as? Bool == false)
        let classes = status["classes"] as? [[String: Any]] ?? []
        #expect(classes.count == 4)
        #expect(classes.allSatisfy { $0["keyAvailable"] as? Bool == true })
    }

    @Test func restartIsBeforeFirstUnlockAndReleasesOnlyClassNone() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        var client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        daemon.stop()

        try daemon.start()
        client = try daemon.client()
        let status = try client.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "beforeFirstUnlock")
        let available = (status["classes"] as? [[String: Any]] ?? [])
            .filter { $0["keyAvailable"] as? Bool == true }.compactMap { $0["class"] as? String }
        #expect(available == ["none"])
        let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": weather, "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "placeholder")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": weather]).error
            == "io.widgetd.ProtectedDataUnavailable")

        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        let unlocked = try client.ok("io.widgetd.Host.GetPresentation", ["widget": weather, "surface": "homeScreen"])
        #expect(Fixtures.mode(unlocked) == "content")
        #expect(Fixtures.field(unlocked, "balance")["value"] as? String == "SECRET-4711")
    }

    @Test func wrongPasscodeIsCountedDelayedAndSurvivesRestart() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        var client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Device.Lock")
        for attempt in 1...4 {
            let reply = try client.call("io.widgetd.Device.Unlock", ["passcode": "wrong-\(attempt)"])
            #expect(reply.error == "io.widgetd.WrongPasscode")
            #expect(reply.parameters["failedAttempts"] as? Int == attempt)
        }
        // The same wrong passcode again does not count.
        let repeated = try client.call("io.widgetd.Device.Unlock", ["passcode": "wrong-4"])
        #expect(repeated.parameters["failedAttempts"] as? Int == 4)

        let fifth = try client.call("io.widgetd.Device.Unlock", ["passcode": "wrong-5"])
        #expect(fifth.error == "io.widgetd.WrongPasscode")
        #expect(fifth.parameters["failedAttempts"] as? Int == 5)
        #expect((fifth.parameters["retryAfter"] as? Double ?? 0) > 50)

        // Even the right passcode waits now.
        let early = try client.call("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(early.error == "io.widgetd.TryAgainLater")

        daemon.kill9()
        try daemon.start()
        client = try daemon.client()
        let status = try client.ok("io.widgetd.Device.GetStatus")
        #expect(status["failedAttempts"] as? Int == 5)
        #expect((status["retryAfter"] as? Double ?? 0) > 50)
    }

    @Test func wipeAfterFailedAttemptsErasesEverything() throws {
        let daemon = try DaemonProcess(daemon: ["WipeAfterFailedAttempts=2"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(clock))
        try client.ok("io.widgetd.Device.Lock")
        #expect(try client.call("io.widgetd.Device.Unlock", ["passcode": "a"]).error == "io.widgetd.WrongPasscode")
        let last = try client.call("io.widgetd.Device.Unlock", ["passcode": "b"])
        #expect(last.error == "io.widgetd.Wiped")
        let widgets = try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [Any]
        #expect(widgets?.isEmpty == true)
        #expect(daemon.log.contains("wiped"))
    }

    @Test func lockHidesClassAAndBButAnOpenClassBTimelineStaysReadableToItsProvider() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(health))
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(mail))
        try client.ok("io.widgetd.Device.Lock")

        let status = try client.ok("io.widgetd.Device.GetStatus")
        let available = Dictionary(uniqueKeysWithValues: (status["classes"] as? [[String: Any]] ?? []).map {
            ($0["class"] as? String ?? "", $0["keyAvailable"] as? Bool ?? true)
        })
        #expect(available == [
            "complete": false, "completeUnlessOpen": false,
            "completeUntilFirstUserAuthentication": true, "none": true,
        ])
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": health]).error
            == "io.widgetd.ProtectedDataUnavailable")
        // Written while unlocked, so open: its provider still reads it…
        let open = try client.ok("io.widgetd.Provider.GetTimeline", ["widget": mail])
        #expect((open["entries"] as? [Any])?.count == 2)
        // …but a host never sees it while locked.
        let shown = try client.ok("io.widgetd.Host.GetPresentation", ["widget": mail, "surface": "homeScreen"])
        #expect(Fixtures.mode(shown) == "placeholder")
        // Closed, it is gone until the next unlock.
        try client.ok("io.widgetd.Provider.CloseTimeline", ["widget": mail])
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": mail]).error
            == "io.widgetd.ProtectedDataUnavailable")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": mail]).error == nil)
    }

    @Test func aClassATimelineWrittenWhileLockedIsReadableAfterUnlock() throws {
        let daemon = try DaemonProcess(daemon: ["ClassAGraceSec=0"])
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Device.Lock")
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(health, secret: "LOCKED-WRITE"))
        let locked = try client.ok("io.widgetd.Host.GetPresentation", ["widget": health, "surface": "homeScreen"])
        #expect(Fixtures.mode(locked) == "placeholder")
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": health]).error
            == "io.widgetd.ProtectedDataUnavailable")
        try client.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        let unlocked = try client.ok("io.widgetd.Host.GetPresentation", ["widget": health, "surface": "homeScreen"])
        #expect(Fixtures.field(unlocked, "balance")["value"] as? String == "LOCKED-WRITE")
    }

    @Test func passcodeChangeKeepsTimelinesAndRejectsTheOldPasscode() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        #expect(try client.call("io.widgetd.Device.SetPasscode", ["current": "9999", "new": "5678"]).error != nil)
        try client.ok("io.widgetd.Device.SetPasscode", ["current": "1234", "new": "5678"])
        daemon.stop()
        try daemon.start()
        let after = try daemon.client()
        #expect(try after.call("io.widgetd.Device.Unlock", ["passcode": "1234"]).error == "io.widgetd.WrongPasscode")
        try after.ok("io.widgetd.Device.Unlock", ["passcode": "5678"])
        #expect(try after.call("io.widgetd.Provider.GetTimeline", ["widget": weather]).error == nil)
        // Removing it: the next start unlocks by itself.
        try after.ok("io.widgetd.Device.SetPasscode", ["current": "5678"])
        daemon.stop()
        try daemon.start()
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
    }

    @Test func wipeNeedsConfirmationAndMakesEveryTimelineUnreadable() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let client = try daemon.client()
        try client.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(weather))
        #expect(try client.call("io.widgetd.Device.Wipe", ["confirm": "yes"]).error
            == "org.varlink.service.InvalidParameter")
        try client.ok("io.widgetd.Device.Wipe", ["confirm": "WIPE"])
        #expect((try client.ok("io.widgetd.Host.ListWidgets")["widgets"] as? [Any])?.isEmpty == true)
        #expect(try client.call("io.widgetd.Provider.GetTimeline", ["widget": weather]).error
            == "io.widgetd.WidgetNotFound")
    }
}
