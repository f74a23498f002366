import Foundation
import Testing

@testable import WidgetDaemon

/// Locks, purges and their race with passcode operations, on the manual clock: each
/// interleaving written down, none left to timing.
@Suite struct ServiceLockTests {
    static let mail = ServiceHarness.widgets[.completeUnlessOpen]!

    @Test func lockPurgesClassAKeyAfterGraceByTheServicesOwnTimer() throws {
        let harness = try ServiceHarness(classAGrace: 10)
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.heldClasses().contains("complete"))
        #expect(!harness.heldClasses().contains("completeUnlessOpen"))
        #expect(harness.scheduler.nextDeadline == ServiceHarness.start.addingTimeInterval(10))
        harness.scheduler.advance(by: 9.9)
        #expect(harness.heldClasses().contains("complete"))
        harness.scheduler.advance(by: 0.1)
        #expect(!harness.heldClasses().contains("complete"))
        #expect(harness.state() == "locked")
    }

    /// The class-A purge and the inactivity restart are the device side's deadlines, armed
    /// and run by it: with no timeline side following it, both still come on time.
    @Test func theDeviceSideArmsAndRunsItsKeyDeadlinesAlone() throws {
        let harness = try ServiceHarness(classAGrace: 10)
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.service.device.follower = nil
        harness.ok("io.widgetd.Device.Lock")
        harness.scheduler.advance(by: 9.9)
        #expect(harness.heldClasses().contains("complete"))
        harness.scheduler.advance(by: 0.1)
        #expect(!harness.heldClasses().contains("complete"))
        #expect(harness.state() == "locked")
        // `RequirePasscodeAfterSec=`'s default, three days after the lock.
        harness.scheduler.advance(by: 72 * 3600 - 10)
        #expect(harness.state() == "beforeFirstUnlock")
    }

    @Test func anUnlockWithinTheGraceKeepsClassAAndDisarmsThePurge() throws {
        let harness = try ServiceHarness(classAGrace: 10)
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        harness.scheduler.advance(by: 5)
        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        harness.scheduler.advance(by: 60)
        #expect(harness.heldClasses().contains("complete"))
        #expect(harness.state() == "unlocked")
    }

    /// A Lock wins over every Unlock still being derived or queued: the running one is
    /// interrupted, a wrong one queued behind is still counted, a right one interrupted.
    @Test func aLockWinsOverTheUnlockBeingDerivedAndTheOnesQueuedBehindIt() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")

        let running = harness.call("io.widgetd.Device.Unlock", ["passcode": "1234"], run: false)
        let queuedWrong = harness.call("io.widgetd.Device.Unlock", ["passcode": "0000"], run: false)
        let queuedRight = harness.call("io.widgetd.Device.Unlock", ["passcode": "1234"], run: false)
        #expect(harness.scheduler.hasHandedOverWork, "the running unlock's verdict waits for the loop")
        let lock = harness.call("io.widgetd.Device.Lock", run: false)
        #expect(lock.isAnswered && lock.error == nil)
        #expect(!running.isAnswered && !queuedWrong.isAnswered && !queuedRight.isAnswered)

        harness.scheduler.run()
        #expect(running.error == "io.widgetd.UnlockInterrupted")
        // A wrong passcode still counts, or a Lock would make guessing free.
        #expect(queuedWrong.error == "io.widgetd.WrongPasscode")
        #expect(queuedWrong.parameters["failedAttempts"] as? Int == 1)
        #expect(queuedRight.error == "io.widgetd.UnlockInterrupted")
        let status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["state"] as? String == "locked")
        #expect(status["failedAttempts"] as? Int == 1)
        #expect(!harness.heldClasses().contains("completeUnlessOpen"))
    }

    /// A SetPasscode overtaken by a Lock is applied (it was authorised), as if it had
    /// finished just before the Lock: the device stays locked, B is purged at once and A
    /// after the grace counted from the lock, and watches are shown the placeholder.
    @Test func aPasscodeSetOvertakenByALockEndsLockedAndPurgedAsTheLockPrescribes() throws {
        let harness = try ServiceHarness(classAGrace: 10)
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail))
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.mail, "surface": "homeScreen"], more: true)
        #expect(watch.mode == "content")

        let setter = harness.call("io.widgetd.Device.SetPasscode", ["new": "1234"], run: false)
        let lock = harness.call("io.widgetd.Device.Lock", run: false)
        #expect(lock.isAnswered && !setter.isAnswered, "the SetPasscode was answered before the Lock: the race was not run")
        harness.scheduler.run()
        #expect(setter.isAnswered && setter.error == nil)
        #expect(harness.state() == "locked")
        #expect(!harness.heldClasses().contains("completeUnlessOpen"))
        #expect(watch.mode == "placeholder", "the watch was not told")
        harness.scheduler.advance(by: 10)
        #expect(!harness.heldClasses().contains("complete"))
        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
    }

    /// GetStatus and Monitor say why the device is locked (DESIGN §8): the source of the
    /// lock that ended the unlocked state, `start` until the first unlock, nothing while
    /// unlocked. A second source (here the session, as the logind listener will) calls
    /// the same entry point with its own reason.
    @Test func lockedBySaysWhichSourceLockedTheDevice() throws {
        let harness = try ServiceHarness()
        #expect(harness.ok("io.widgetd.Device.GetStatus")["lockedBy"] == nil)
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try harness.restart()
        #expect(harness.ok("io.widgetd.Device.GetStatus")["lockedBy"] as? String == "start")
        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        #expect(harness.ok("io.widgetd.Device.GetStatus")["lockedBy"] == nil)

        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        try harness.service.device.apply(.lock(.session))
        let event = monitor.parameters["event"] as? [String: Any]
        #expect(event?["state"] as? String == "locked")
        #expect(event?["lockedBy"] as? String == "session")
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.ok("io.widgetd.Device.GetStatus")["lockedBy"] as? String == "session", "a second lock changes nothing")
        harness.ok("io.widgetd.Device.Unlock", ["passcode": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.ok("io.widgetd.Device.GetStatus")["lockedBy"] as? String == "client")
    }
}

/// A device change's call is answered before monitors hear of the change, as `Lock` always was.
@Suite struct ServiceDeviceChangeOrderTests {
    @Test func aLocksReplyGoesBeforeTheEventMonitorsHear() throws {
        let harness = try ServiceHarness()
        var order: [String] = []
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        let heard = monitor.replies.count
        try harness.service.device.apply(.lock(.client)) {
            order.append("answer")
            #expect(monitor.replies.count == heard, "the monitor heard of the lock before its call was answered")
        }
        #expect(order == ["answer"])
        #expect(monitor.replies.count == heard + 1)
    }
}
