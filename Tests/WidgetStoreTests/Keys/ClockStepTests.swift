import Foundation
import Testing
import WidgetdPOSIX
@testable import StoreKeys
@testable import WidgetStore

/// Durations run on the monotonic clock, not on the wall clock (DESIGN §8): setting the
/// wall clock, forward or back (an NTP correction, a phone whose clock was wrong at
/// boot), neither shortens nor stretches class A's grace or the failed-attempt delay.
@Suite struct ClockStepTests {
    struct Step: Sendable, CustomTestStringConvertible {
        /// Seconds the wall clock is set by (back if negative).
        let wall: Double
        /// Seconds of running time since the lock or the failure.
        let elapsed: Double
        let testDescription: String

        init(wall: Double, elapsed: Double) {
            self.wall = wall
            self.elapsed = elapsed
            testDescription = "wall set by \(wall) s, \(elapsed) s later"
        }

        /// The clocks `elapsed` seconds after t0, the wall clock set by `wall`.
        var reading: ClockReading {
            var reading = ClockReading.at(t0).advanced(by: elapsed)
            reading.wall = reading.wall.addingTimeInterval(wall)
            return reading
        }
    }

    /// With a grace of 10 s: the step, and whether class A is still held.
    static let graceRows: [(Step, Bool)] = [
        (Step(wall: -3600, elapsed: 11), false),
        (Step(wall: -3600, elapsed: 5), true),
        (Step(wall: 3600, elapsed: 5), true),
        (Step(wall: 3600, elapsed: 11), false),
        (Step(wall: 0, elapsed: 9.9), true),
        (Step(wall: 0, elapsed: 10), false),
    ]

    @Test(arguments: graceRows)
    func classAIsPurgedAfterItsGraceOfRunningTimeWhereverTheWallClockIsSet(step: Step, classAHeld: Bool) throws {
        let f = Fixture()
        var configuration = StoreConfiguration.test
        configuration.classAGrace = 10
        do {
            let store = try f.open(configuration)
            try putOnePerClass(store)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open(configuration)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        store.lock(now: .at(t0))
        store.advance(to: step.reading)
        #expect(store.isKeyAvailable(.complete) == classAHeld)
        #expect(!store.isKeyAvailable(.completeUnlessOpen))
    }

    /// After the fifth wrong passcode (a 60 s delay): the step, and the wait left.
    static let attemptRows: [(Step, Double?)] = [
        (Step(wall: 3600, elapsed: 0), 60),
        (Step(wall: 3600, elapsed: 30), 30),
        (Step(wall: 86_400, elapsed: 59), 1),
        (Step(wall: -3600, elapsed: 30), 30),
        (Step(wall: -3600, elapsed: 61), nil),
        (Step(wall: 0, elapsed: 60), nil),
    ]

    @Test(arguments: attemptRows)
    func theFailedAttemptDelayRunsOnRunningTimeWhereverTheWallClockIsSet(step: Step, wait: Double?) throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        let store = try f.open()
        for n in 1...5 {
            #expect(throws: StoreError.self) { try store.unlock(passcode: secure("wrong\(n)"), now: .at(t0)) }
        }
        #expect(store.retryAfter(now: .at(t0)) == 60)
        #expect(store.retryAfter(now: step.reading) == wait)
        if let wait {
            #expect(throws: StoreError.tryAgainLater(retryAfter: wait)) {
                try store.unlock(passcode: secure("1234"), now: step.reading)
            }
        } else {
            try store.unlock(passcode: secure("1234"), now: step.reading)
            #expect(store.deviceState == .unlocked)
        }
    }

    @Test func afterARestartTheWallClockSaysHowMuchOfTheDelayIsLeftThenRunningTimeCountsItDown() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            for n in 1...5 {
                #expect(throws: StoreError.self) { try store.unlock(passcode: secure("wrong\(n)"), now: .at(t0)) }
            }
        }
        // Restarted 20 s later, on a machine whose monotonic clock began anew.
        let store = try f.open()
        var reading = ClockReading(
            wall: t0.addingTimeInterval(20), monotonic: MonotonicInstant(seconds: 5), boottime: BootInstant(seconds: 5))
        #expect(store.retryAfter(now: reading) == 40)
        // Then the wall clock is set forward a day: 30 s later, 10 s are still left.
        reading = reading.advanced(by: 30)
        reading.wall = reading.wall.addingTimeInterval(86_400)
        #expect(store.retryAfter(now: reading) == 10)
    }
}
