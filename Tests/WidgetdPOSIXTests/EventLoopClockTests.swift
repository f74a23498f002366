import Foundation
import Synchronization
import Testing
@testable import WidgetdPOSIX

/// The loop's timers, each on its clock (DESIGN §8), on injected clocks: a duration on
/// the monotonic clock, one that counts sleep on the boot-time clock, a date on the wall
/// clock. Moving one clock runs the timers of that clock only.
@Suite struct EventLoopClockTests {
    /// Clocks a test moves by hand.
    final class Clocks: Sendable {
        let reading = Mutex(ClockReading(
            wall: Date(timeIntervalSince1970: 1_800_000_000), monotonic: MonotonicInstant(seconds: 1000),
            boottime: BootInstant(seconds: 2000)))
        var now: ClockReading { reading.withLock { $0 } }
    }

    struct Move: Sendable, CustomTestStringConvertible {
        let wall: Double
        let monotonic: Double
        let boottime: Double
        /// The timers (each 5 s ahead on its clock) that then run.
        let ran: Set<String>
        let testDescription: String
    }

    static let moves: [Move] = [
        Move(wall: 10, monotonic: 0, boottime: 0, ran: ["wall"], testDescription: "wall clock set forward"),
        Move(wall: -3600, monotonic: 6, boottime: 6, ran: ["monotonic", "boottime"], testDescription: "wall clock set back, time runs"),
        Move(wall: 6, monotonic: 0, boottime: 6, ran: ["wall", "boottime"], testDescription: "the machine sleeps"),
        Move(wall: 4, monotonic: 4, boottime: 4, ran: [], testDescription: "time runs, not enough"),
        Move(wall: 5, monotonic: 5, boottime: 5, ran: ["wall", "monotonic", "boottime"], testDescription: "time runs"),
    ]

    @Test(arguments: moves)
    func aTimerRunsWhenItsOwnClockReachesItsDeadline(move: Move) throws {
        let clocks = Clocks()
        let loop = try EventLoop(clock: { clocks.now })
        let start = clocks.now
        var ran: Set<String> = []
        loop.schedule(at: start.wall.addingTimeInterval(5)) { ran.insert("wall") }
        loop.schedule(after: 5) { ran.insert("monotonic") }
        loop.schedule(at: .boottime(start.boottime.addingTimeInterval(5))) { ran.insert("boottime") }
        clocks.reading.withLock {
            $0.wall = $0.wall.addingTimeInterval(move.wall)
            $0.monotonic = $0.monotonic.addingTimeInterval(move.monotonic)
            $0.boottime = $0.boottime.addingTimeInterval(move.boottime)
        }
        // Looked at on the next turn, after every timer due on this one ran.
        var seen: Set<String> = []
        loop.schedule(at: Date.distantPast) {
            loop.schedule(at: Date.distantPast) {
                seen = ran
                loop.stop()
            }
        }
        try loop.run()
        #expect(seen == move.ran)
    }

    @Test func settingTheWallClockRunsTheHandlersThatChoseTimersFromDates() throws {
        let clocks = Clocks()
        let loop = try EventLoop(clock: { clocks.now })
        var told = 0
        loop.onWallClockSet { told += 1 }
        loop.wallClockWasSet()
        loop.wallClockWasSet()
        #expect(told == 2)
    }

    @Test func onTheKernelsClocksADurationTimerRuns() throws {
        let loop = try EventLoop()
        var ran = false
        loop.schedule(after: 0.01) {
            ran = true
            loop.stop()
        }
        try loop.run()
        #expect(ran)
    }

    @Test func onTheKernelsClocksABootTimeTimerRunsThroughItsTimerfd() throws {
        let loop = try EventLoop()
        var ran = false
        loop.schedule(at: .boottime(loop.clocks.boottime.addingTimeInterval(0.01))) {
            ran = true
            loop.stop()
        }
        try loop.run()
        #expect(ran)
    }
}
