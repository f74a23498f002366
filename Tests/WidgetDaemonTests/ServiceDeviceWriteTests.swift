import Foundation
import Testing
import WidgetdPOSIX

@testable import WidgetDaemon

/// Issue 40: a device change's own durable write syncs off the loop. The keybag of a
/// passcode set or change, of a wrong passcode counted, of a right one resetting the
/// count, and the settings file of `SetSettings` are written on ``DeviceWrites``; the call
/// is parked until its write returns, and everyone else is served meanwhile. A wipe
/// waits for such a write, and such writes wait for each other.
///
/// The writes are held by the test (`ManualScheduler.holding`) until it releases them:
/// nothing depends on how long a sync takes.
@Suite struct ServiceDeviceWriteTests {
    static let mail = ServiceHarness.widgets[.completeUnlessOpen]!

    /// A harness with a widget for other clients to read, whose device writes are held
    /// from now on.
    static func harness(passcode: String? = nil) throws -> ServiceHarness {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail))
        if let passcode { harness.ok("io.widgetd.Device.SetPasscode", ["new": passcode]) }
        harness.scheduler.holding = [DeviceWrites.queue]
        return harness
    }

    static func status(_ harness: ServiceHarness) -> [String: Any] { harness.ok("io.widgetd.Device.GetStatus") }

    @Test func aPasscodeChangeIsParkedWhileItsKeybagSyncs() throws {
        let harness = try Self.harness()
        let set = harness.call("io.widgetd.Device.SetPasscode", ["new": "1234"])
        // Before: the keybag was written on the loop and the call answered at once.
        #expect(!set.isAnswered && harness.scheduler.held.count == 1, "the keybag was written on the loop")
        ServiceParkedCallTests.anotherClientIsServed(harness)
        #expect(Self.status(harness)["passcodeSet"] as? Bool == false)  // not until it is durable
        ServiceParkedCallTests.releaseSyncs(harness)
        #expect(set.isAnswered && set.error == nil, "\(set.replies)")
        #expect(Self.status(harness)["passcodeSet"] as? Bool == true)
        try harness.restart()
        harness.scheduler.holding = []
        #expect(harness.call("io.widgetd.Device.Unlock", ["passcode": "0000"]).error == "io.widgetd.WrongPasscode")
        harness.scheduler.advance(by: 60)  // past the delay after a failure
        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(harness.state() == "unlocked")
    }

    @Test func aWrongPasscodeIsCountedDurablyBeforeItIsAnswered() throws {
        let harness = try Self.harness(passcode: "1234")
        harness.ok("io.widgetd.Device.Lock")
        let guess = harness.call("io.widgetd.Device.Unlock", ["passcode": "9999"])
        #expect(!guess.isAnswered && harness.scheduler.held.count == 1, "the count was written on the loop")
        ServiceParkedCallTests.anotherClientIsServed(harness)
        ServiceParkedCallTests.releaseSyncs(harness)
        #expect(guess.error == "io.widgetd.WrongPasscode", "\(guess.replies)")
        #expect(Self.status(harness)["failedAttempts"] as? Int == 1)
        try harness.restart()
        #expect(Self.status(harness)["failedAttempts"] as? Int == 1)
    }

    /// A right passcode after a wrong one resets the count in the keybag; a lock while
    /// that is written beats the unlock, as a lock before it does, and the count stays
    /// reset (the passcode was right).
    @Test func aLockWhileAnUnlocksKeybagSyncsWins() throws {
        let harness = try Self.harness(passcode: "1234")
        harness.ok("io.widgetd.Device.Lock")
        let guess = harness.call("io.widgetd.Device.Unlock", ["passcode": "9999"])
        ServiceParkedCallTests.releaseSyncs(harness)
        #expect(guess.error == "io.widgetd.WrongPasscode")
        harness.scheduler.advance(by: 60)  // past the delay after a failure
        let unlock = harness.call("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(!unlock.isAnswered && harness.scheduler.held.count == 1)
        #expect(harness.state() == "locked")
        let lock = harness.call("io.widgetd.Device.Lock")
        #expect(lock.isAnswered && lock.error == nil)
        ServiceParkedCallTests.releaseSyncs(harness)
        #expect(unlock.error == "io.widgetd.UnlockInterrupted", "\(unlock.replies)")
        #expect(harness.state() == "locked")
        #expect(Self.status(harness)["failedAttempts"] as? Int == 0)
    }

    /// Settings are written off the loop, and a second `SetSettings` sent meanwhile builds
    /// on the first once its turn comes.
    @Test func settingsAreParkedWhileTheirFileSyncsAndTheNextBuildsOnThem() throws {
        let harness = try Self.harness()
        let first = harness.call("io.widgetd.Device.SetSettings", ["lockScreenWidgetsAccess": false])
        #expect(!first.isAnswered && harness.scheduler.held.count == 1, "the settings were written on the loop")
        let second = harness.call("io.widgetd.Device.SetSettings", ["hideSensitiveComplications": "all"])
        #expect(!second.isAnswered && harness.scheduler.held.count == 1)
        ServiceParkedCallTests.anotherClientIsServed(harness)
        let meanwhile = harness.ok("io.widgetd.Device.GetSettings")["settings"] as? [String: Any]
        #expect(meanwhile?["lockScreenWidgetsAccess"] as? Bool == true)
        ServiceParkedCallTests.releaseSyncs(harness)
        #expect(first.isAnswered && first.error == nil && second.isAnswered && second.error == nil)
        try harness.restart()
        let settings = harness.ok("io.widgetd.Device.GetSettings")["settings"] as? [String: Any]
        #expect(settings?["lockScreenWidgetsAccess"] as? Bool == false)
        #expect(settings?["hideSensitiveComplications"] as? String == "all")
    }

    /// A wipe that comes while a passcode change's keybag is written waits for it (it
    /// would otherwise race the file it erases), then erases.
    @Test func aWipeWaitsForTheKeybagBeingWritten() throws {
        let harness = try Self.harness()
        let set = harness.call("io.widgetd.Device.SetPasscode", ["new": "1234"])
        let wipe = harness.call("io.widgetd.Device.Wipe", ["confirm": "WIPE"])
        #expect(!set.isAnswered && !wipe.isAnswered && harness.scheduler.held.count == 1)
        ServiceParkedCallTests.anotherClientIsServed(harness)
        ServiceParkedCallTests.releaseSyncs(harness)
        #expect(set.isAnswered && set.error == nil, "\(set.replies)")
        #expect(wipe.isAnswered && wipe.error == nil, "\(wipe.replies)")
        #expect(Self.status(harness)["passcodeSet"] as? Bool == false)
        try harness.restart()
        #expect(Self.status(harness)["passcodeSet"] as? Bool == false)
        #expect(harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.mail]).error == "io.widgetd.WidgetNotFound")
    }
}
