import Foundation
import Testing

@testable import WidgetDaemon

/// `GetStatus` shows the timers a lock starts: the class-A grace and
/// `RequirePasscodeAfterSec=`, in seconds left on the service's own clock.
@Suite struct ServiceStatusTimerTests {
    @Test func unlockedNoTimerRuns() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        let status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["classAGraceEndsIn"] == nil)
        #expect(status["passcodeRequiredIn"] == nil)
    }

    @Test func aLockShowsTheGraceLeftAndWhenThePasscodeIsNeeded() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        harness.scheduler.advance(by: 4)
        var status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["classAGraceEndsIn"] as? Double == 6)
        #expect(status["passcodeRequiredIn"] as? Double == Double(72 * 3600 - 4))

        harness.scheduler.advance(by: 6)
        status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["classAGraceEndsIn"] == nil, "the grace is over: class A is purged")
        #expect(status["passcodeRequiredIn"] as? Double == Double(72 * 3600 - 10))
    }

    @Test func withRequirePasscodeAfterSecOffOnlyTheGraceRuns() throws {
        let harness = try ServiceHarness { $0.session.requirePasscodeAfter = nil }
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        let status = harness.ok("io.widgetd.Device.GetStatus")
        #expect(status["classAGraceEndsIn"] as? Double == 10)
        #expect(status["passcodeRequiredIn"] == nil)
    }
}
