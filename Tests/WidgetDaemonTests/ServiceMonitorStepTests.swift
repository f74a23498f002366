import Foundation
import Testing

@testable import WidgetDaemon

/// DESIGN §8: `Monitor` events say, as `GetStatus` does, whether the passcode is in step
/// with the login password and which sessions are watched; a passcode reported out of
/// step is announced when it happens.
@Suite struct ServiceMonitorStepTests {
    @Test func aPasscodeReportedOutOfStepIsAnnouncedToMonitors() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        let first = monitor.parameters["event"] as? [String: Any]
        #expect(first?["passcodeInStep"] as? Bool == true)
        let events = monitor.replies.count

        harness.ok("io.widgetd.Device.ReportPasscodeOutOfStep")
        #expect(monitor.replies.count == events + 1, "one event for the report")
        let event = monitor.parameters["event"] as? [String: Any]
        #expect(event?["kind"] as? String == "state")
        #expect(event?["passcodeInStep"] as? Bool == false)

        harness.ok("io.widgetd.Device.SetPasscode", ["current": "1234", "new": "5678"])
        let after = monitor.parameters["event"] as? [String: Any]
        #expect(after?["passcodeInStep"] as? Bool == true, "the right current passcode brings it back in step")
    }

    @Test func monitorEventsNameTheWatchedSessions() throws {
        /// Follows sessions 3 and 7.
        final class TwoSessions: SessionFollower {
            var watchedSessions: [String]? { ["3", "7"] }
        }
        let harness = try ServiceHarness()
        let sessions = TwoSessions()
        harness.service.device.sessionFollower = sessions
        let monitor = harness.call("io.widgetd.Device.Monitor", more: true)
        harness.ok("io.widgetd.Device.Lock")
        let event = monitor.parameters["event"] as? [String: Any]
        #expect(event?["sessions"] as? [String] == ["3", "7"])
        // Held weakly by the device: kept until the events were read.
        withExtendedLifetime(sessions) {}
    }
}
