import Foundation
import Testing

import WidgetModel
@testable import WidgetDaemon

/// Time (DESIGN §8) through the service on the manual clocks: durations (class A's grace)
/// on the monotonic clock, `RequirePasscodeAfterSec=` on the boot-time clock (sleep
/// counts), dates (entries, reloads) on the wall clock, chosen again at once when the
/// wall clock is set, forward or back.
@Suite struct ServiceClockTests {
    static let health = ServiceHarness.widgets[.complete]!
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!
    static let threeDays: Double = 72 * 3600

    /// A harness with every class stored and a passcode, locked at the start.
    static func locked(configure: (inout Configuration) -> Void = { _ in }) throws -> ServiceHarness {
        let harness = try ServiceHarness(classAGrace: 3, configure: configure)
        harness.putEveryClass()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        #expect(harness.heldClasses().contains("complete"), "within the grace")
        return harness
    }

    /// Seconds the wall clock is set by, right after the lock (back if negative).
    static let steps: [Double] = [-3600, -86_400 * 365, 3600]

    @Test(arguments: steps)
    func classAIsPurgedWhenItsGraceOfRunningTimeEndsWhereverTheWallClockIsSet(step: Double) throws {
        let harness = try Self.locked()
        harness.scheduler.stepWall(by: step)
        #expect(harness.heldClasses().contains("complete"), "setting the clock is no time passing")
        harness.scheduler.advance(by: 2.9)
        #expect(harness.heldClasses().contains("complete"))
        #expect(harness.mode(Self.health) == "placeholder")
        harness.scheduler.advance(by: 0.1)
        #expect(!harness.heldClasses().contains("complete"))
        #expect(harness.state() == "locked")
    }

    /// How the clocks move after the lock, and whether the device must then have its
    /// passcode again (`RequirePasscodeAfterSec=`, three days by default).
    enum Move: String, Sendable, CaseIterable {
        /// The machine sleeps three days: the boot-time clock counts them.
        case sleepsThreeDays
        /// The wall clock is set three days forward: no time passed.
        case wallSetThreeDaysForward
        /// The wall clock is set a day back, then three days run.
        case wallSetBackThenThreeDaysRun

        var requiresPasscode: Bool { self != .wallSetThreeDaysForward }
    }

    @Test(arguments: Move.allCases)
    func requirePasscodeAfterSecCountsRunningAndSleepingTimeNotSettingsOfTheWallClock(move: Move) throws {
        let harness = try Self.locked()
        switch move {
        case .sleepsThreeDays: harness.scheduler.sleep(for: Self.threeDays)
        case .wallSetThreeDaysForward: harness.scheduler.stepWall(by: Self.threeDays)
        case .wallSetBackThenThreeDaysRun:
            harness.scheduler.stepWall(by: -86_400)
            harness.scheduler.advance(by: Self.threeDays)
        }
        #expect(harness.state() == (move.requiresPasscode ? "beforeFirstUnlock" : "locked"))
        #expect(harness.heldClasses().contains("completeUntilFirstUserAuthentication") == !move.requiresPasscode)
    }

    /// A timeline of three entries, a minute apart, the middle one current at the start.
    static func threeEntries(_ harness: ServiceHarness) {
        let now = harness.scheduler.now
        harness.ok("io.widgetd.Provider.PutTimeline", [
            "widget": Self.weather, "policy": ["kind": "never"],
            "entries": [ServiceHarness.entry(at: now.addingTimeInterval(-120), headline: "Earlier"),
                        ServiceHarness.entry(at: now.addingTimeInterval(-1), headline: "Now"),
                        ServiceHarness.entry(at: now.addingTimeInterval(60), headline: "Later")],
        ])
    }

    /// The wall clock set by, and the entry a watching host is then shown at once (and
    /// `GetPresentation` answers).
    static let entrySteps: [(Double, String)] = [(-60, "Earlier"), (3600, "Later"), (-3600, "Earlier")]

    @Test(arguments: entrySteps)
    func aWatchingHostIsShownTheEntryCurrentAtOnceWhenTheWallClockIsSet(step: Double, headline: String) throws {
        let harness = try ServiceHarness()
        Self.threeEntries(harness)
        // Asked once, so that a reply is cached for the entry current now.
        #expect(ServiceStreamTests.headline(harness.call("io.widgetd.Host.GetPresentation", ["widget": Self.weather, "surface": "homeScreen"])) == "Now")
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.weather, "surface": "homeScreen"], more: true)
        #expect(ServiceStreamTests.headline(watch) == "Now")
        harness.scheduler.stepWall(by: step)
        #expect(watch.replies.count == 2)
        #expect(ServiceStreamTests.headline(watch) == headline)
        let asked = harness.call("io.widgetd.Host.GetPresentation", ["widget": Self.weather, "surface": "homeScreen"])
        #expect(ServiceStreamTests.headline(asked) == headline)
    }

    @Test func afterTheWallClockIsSetBackTheNextEntryComesAtItsDateNotAtTheOldOne() throws {
        let harness = try ServiceHarness()
        Self.threeEntries(harness)
        let watch = harness.call("io.widgetd.Host.Watch", ["widget": Self.weather, "surface": "homeScreen"], more: true)
        harness.scheduler.stepWall(by: -60)
        #expect(ServiceStreamTests.headline(watch) == "Earlier")
        // "Now" is current again 59 s later, by its date.
        harness.scheduler.advance(by: 58.9)
        #expect(ServiceStreamTests.headline(watch) == "Earlier")
        harness.scheduler.advance(by: 0.1)
        #expect(ServiceStreamTests.headline(watch) == "Now")
    }

    @Test func aReloadDateReachedBySettingTheWallClockForwardIsAnnouncedAtOnce() throws {
        let harness = try ServiceHarness()
        var parameters = harness.putParameters(Self.weather)
        parameters["policy"] = ["kind": "after", "date": ServiceHarness.rfc3339(harness.scheduler.now.addingTimeInterval(3600))]
        harness.ok("io.widgetd.Provider.PutTimeline", parameters)
        let reloads = harness.call("io.widgetd.Provider.WatchReloads", more: true)
        #expect(reloads.replies.isEmpty)
        harness.scheduler.stepWall(by: 3600)
        #expect(reloads.replies.count == 1)
        #expect(reloads.parameters["reason"] as? String == "due")
    }
}
