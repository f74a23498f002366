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

    /// What the kernel says of a timerfd the loop armed, on the loop's next turn.
    static func armed(_ alarm: (EventLoop) -> FileDescriptor, on loop: EventLoop) throws -> [String: String] {
        var info = ""
        let path = "/proc/self/fdinfo/\(alarm(loop).rawValue)"
        loop.schedule(after: 0) {
            loop.schedule(after: 0) {
                info = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                loop.stop()
            }
        }
        try loop.run()
        var fields: [String: String] = [:]
        for line in info.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    /// The whole seconds left before the timerfd expires (`it_value: (seconds, nanoseconds)`).
    static func secondsLeft(_ fields: [String: String]) -> Int? {
        fields["it_value"].flatMap { Int($0.dropFirst().prefix { $0 != "," }) }
    }

    @Test func onTheKernelsClocksTheNextDateWaitsOnAWallClockTimerfdThatReportsASettingOfTheClock() throws {
        let loop = try EventLoop()
        loop.schedule(at: Date().addingTimeInterval(3600)) {}
        let fields = try Self.armed({ $0.wallAlarm }, on: loop)
        #expect(fields["clockid"] == "0", "CLOCK_REALTIME")
        #expect(Self.secondsLeft(fields).map { $0 > 3500 && $0 <= 3600 } == true, "due in an hour")
        #expect(fields["settime flags"] == "03", "TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET")
    }

    @Test func onTheKernelsClocksTheWallClockTimerfdIsArmedWithNoDateToWaitFor() throws {
        let loop = try EventLoop()
        let fields = try Self.armed({ $0.wallAlarm }, on: loop)
        #expect(fields["settime flags"] == "03", "armed, so that a setting of the clock is reported")
    }

    @Test func onTheKernelsClocksABootTimeDeadlineWaitsOnABootTimeTimerfd() throws {
        let loop = try EventLoop()
        loop.schedule(at: .boottime(loop.clocks.boottime.addingTimeInterval(3600))) {}
        let fields = try Self.armed({ $0.bootAlarm }, on: loop)
        #expect(fields["clockid"] == "7", "CLOCK_BOOTTIME")
        #expect(Self.secondsLeft(fields).map { $0 > 3500 && $0 <= 3600 } == true, "due in an hour")
        #expect(fields["settime flags"] == "01", "TFD_TIMER_ABSTIME")
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

/// A clock read is not free: the loop reads a clock only when a timer of that
/// clock may be due or a handler asks for the turn's time, and then once per turn.
@Suite struct EventLoopClockReadTests {
    final class CountedClocks: Sendable {
        let reads = Atomic<Int>(0)
        let start = ClockReading(
            wall: Date(timeIntervalSince1970: 1_800_000_000), monotonic: MonotonicInstant(seconds: 1000),
            boottime: BootInstant(seconds: 2000))
        let reading: Mutex<ClockReading>
        init() { reading = Mutex(start) }
        var now: ClockReading {
            reads.add(1, ordering: .relaxed)
            return reading.withLock { $0 }
        }
        var count: Int { reads.load(ordering: .relaxed) }
    }

    /// What the loop's turns saw; touched on the loop's thread only.
    final class Seen: @unchecked Sendable {
        var turns = 0
        var times: [Double] = []
        var readsInTurn = -1
    }

    /// Wakes the loop `count` times, one turn after another, through ``EventLoop/execute(_:)``.
    static func wake(_ loop: EventLoop, _ seen: Seen, times count: Int) {
        loop.execute {
            seen.turns += 1
            if seen.turns == count { loop.stop() } else { wake(loop, seen, times: count) }
        }
    }

    @Test func turnsThatAskForNoTimeReadNoClock() throws {
        let clocks = CountedClocks()
        let loop = try EventLoop(clock: { clocks.now })
        let before = clocks.count
        let seen = Seen()
        Self.wake(loop, seen, times: 5)
        try loop.run()
        #expect(seen.turns == 5)
        #expect(clocks.count == before)
    }

    @Test func aTurnReadsTheClocksOnceHoweverOftenItsHandlersAsk() throws {
        let clocks = CountedClocks()
        let loop = try EventLoop(clock: { clocks.now })
        let seen = Seen()
        loop.execute {
            let before = clocks.count
            clocks.reading.withLock { $0 = $0.advanced(by: 1) }
            for _ in 0..<3 { seen.times += [loop.turnInstant.seconds, loop.turnTime.timeIntervalSince(clocks.start.wall)] }
            seen.readsInTurn = clocks.count - before
            loop.stop()
        }
        try loop.run()
        #expect(seen.readsInTurn == 1)
        #expect(seen.times == Array(repeating: [1001, 1], count: 3).flatMap { $0 }, "read when first asked, after the loop woke; the same all turn")
    }

    @Test func pendingTimersCostOneReadOfTheInjectedClocksPerTurn() throws {
        let clocks = CountedClocks()
        let loop = try EventLoop(clock: { clocks.now })
        loop.schedule(after: 3600) {}
        loop.schedule(at: Date(timeIntervalSince1970: 1_900_000_000)) {}
        let before = clocks.count
        let seen = Seen()
        Self.wake(loop, seen, times: 4)
        try loop.run()
        // Each turn: the timers' check, one reading of the three injected clocks.
        #expect(clocks.count - before == seen.turns)
    }

    @Test func onTheKernelsClocksADatedTimerRunsThroughItsTimerfd() throws {
        let loop = try EventLoop()
        var ran = false
        loop.schedule(after: 3600) {}
        loop.schedule(at: Date().addingTimeInterval(0.02)) {
            ran = true
            loop.stop()
        }
        try loop.run()
        #expect(ran)
    }

    @Test func onTheKernelsClocksADatedTimerEarlierThanTheArmedOneRuns() throws {
        let loop = try EventLoop()
        var ran: [String] = []
        loop.schedule(at: Date().addingTimeInterval(3600)) { ran.append("late") }
        // After a turn has armed the timerfd for the hour, an earlier date goes ahead of it.
        loop.schedule(after: 0) {
            loop.schedule(at: Date().addingTimeInterval(0.02)) {
                ran.append("early")
                loop.stop()
            }
        }
        try loop.run()
        #expect(ran == ["early"])
    }
}
