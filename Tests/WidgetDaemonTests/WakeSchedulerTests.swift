import Foundation
import Testing
import WidgetdPOSIX

@testable import WidgetDaemon

/// What `WakeSchedulerDelegate` promises: one wake-up per timer that fires, the timer
/// disarmed first, on a scheduler the test drives.
@Suite struct WakeSchedulerTests {
    /// Notes, at each wake-up, the date the wall-clock timer is then armed for.
    final class RecordingWake: WakeSchedulerDelegate {
        weak var timers: WakeScheduler?
        private(set) var armedDatesAtWake: [Date?] = []
        func wakeUp() { armedDatesAtWake.append(timers?.date) }
    }

    @Test func aDateTimerWakesItsDelegateOnceAndIsDisarmedFirst() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let loop = ManualScheduler(now: start)
        let timers = WakeScheduler(scheduler: loop)
        let recording = RecordingWake()
        recording.timers = timers
        timers.delegate = recording
        let due = start.addingTimeInterval(60)
        timers.reschedule(purge: nil, inactivity: nil, date: due)
        // Re-armed to the same date: still one timer, one wake-up.
        timers.reschedule(purge: nil, inactivity: nil, date: due)
        #expect(timers.date == due)
        loop.advance(by: 59)
        #expect(recording.armedDatesAtWake.isEmpty)
        loop.advance(by: 1)
        #expect(recording.armedDatesAtWake == [nil])
        loop.advance(by: 3600)
        #expect(recording.armedDatesAtWake.count == 1)
    }
}
