import Foundation
import Testing

@testable import WidgetDaemon

/// `RequirePasscodeAfterSec=` (DESIGN §8, iOS's inactivity restart) on the manual clock:
/// locked that long, class C is purged too and the device is before-first-unlock again.
@Suite struct ServiceInactivityTests {
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!
    static let threeDays: Double = 72 * 3600

    /// A harness with a passcode, a class-C timeline, unlocked.
    static func unlockedWithClassC(configure: (inout Configuration) -> Void = { _ in }) throws -> ServiceHarness {
        let harness = try ServiceHarness(configure: configure)
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather))
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        return harness
    }

    @Test func lockedForRequirePasscodeAfterSecPurgesClassCAndIsBeforeFirstUnlockAgain() throws {
        let harness = try Self.unlockedWithClassC()
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.scheduler.nextDeadline == ServiceHarness.start.addingTimeInterval(10), "class A first")
        harness.scheduler.advance(by: Self.threeDays - 1)
        #expect(harness.heldClasses().contains("completeUntilFirstUserAuthentication"))
        #expect(harness.mode(Self.weather) == "content")
        #expect(harness.state() == "locked")

        harness.scheduler.advance(by: 1)
        #expect(!harness.heldClasses().contains("completeUntilFirstUserAuthentication"))
        #expect(harness.mode(Self.weather) == "placeholder")
        let status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "beforeFirstUnlock")
        #expect(status["lockedBy"] as? String == "inactivity")
        #expect(harness.scheduler.nextDeadline == nil, "nothing is left to purge")

        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(harness.mode(Self.weather) == "content", "the passcode brings class C back")
    }

    @Test func theInactivityRestartIsPublishedToMonitorsWithLockedByInactivity() throws {
        let harness = try Self.unlockedWithClassC()
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        harness.ok("io.widgetd.Device.Lock")
        let events = monitor.replies.count
        harness.scheduler.advance(by: Self.threeDays)
        #expect(monitor.replies.count == events + 1, "one event for the restart")
        let event = monitor.parameters["event"] as? [String: Any]
        #expect(event?["state"] as? String == "beforeFirstUnlock")
        #expect(event?["lockedBy"] as? String == "inactivity")
    }

    @Test func anUnlockInBetweenStartsTheInactivityDeadlineOverFromTheNextLock() throws {
        let harness = try Self.unlockedWithClassC()
        harness.ok("io.widgetd.Device.Lock")
        harness.scheduler.advance(by: Self.threeDays - 10)
        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        harness.scheduler.advance(by: 60)
        try harness.service.device.apply(.lock(.session))
        harness.scheduler.advance(by: Self.threeDays - 1)
        #expect(harness.heldClasses().contains("completeUntilFirstUserAuthentication"))
        #expect(harness.ok("io.widgetd.Device.GetStatus")["lockedBy"] as? String == "session")
        harness.scheduler.advance(by: 1)
        #expect(harness.state() == "beforeFirstUnlock")
    }

    @Test func requirePasscodeAfterSecZeroNeverPurgesClassC() throws {
        let harness = try Self.unlockedWithClassC { $0.session.requirePasscodeAfter = nil }
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.service.device.store.requirePasscodeDue == nil, "no deadline for inactivity")
        harness.scheduler.advance(by: 365 * 86_400)
        #expect(harness.heldClasses().contains("completeUntilFirstUserAuthentication"))
        #expect(harness.state() == "locked")
    }

    @Test func withoutAPasscodeInactivityChangesNothing() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.service.device.store.requirePasscodeDue == nil)
        harness.scheduler.advance(by: Self.threeDays)
        #expect(harness.state() == "locked")
        #expect(harness.heldClasses().contains("completeUntilFirstUserAuthentication"))
    }

    /// Only a locked device goes back to before-first-unlock: an inactivity change that
    /// arrives unlocked (an unlock just before the timer) purges nothing and says nothing.
    @Test func anInactivityChangeWhileUnlockedChangesNothing() throws {
        let harness = try Self.unlockedWithClassC()
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        let events = monitor.replies.count
        try harness.service.device.apply(.lock(.inactivity))
        #expect(harness.state() == "unlocked")
        #expect(harness.heldClasses().contains("complete"))
        #expect(monitor.replies.count == events)
    }

    @Test func aShorterRequirePasscodeAfterSecIsHonoured() throws {
        let harness = try Self.unlockedWithClassC { $0.session.requirePasscodeAfter = 3600 }
        harness.ok("io.widgetd.Device.Lock")
        harness.scheduler.advance(by: 3599)
        #expect(harness.state() == "locked")
        harness.scheduler.advance(by: 1)
        #expect(harness.state() == "beforeFirstUnlock")
    }
}
