import Dispatch
import Foundation
import Synchronization
import WidgetdPOSIX

@testable import WidgetDaemon

/// A scheduler the test drives by hand: its clocks move only when told (``advance(by:)``
/// moves all three; ``stepWall(by:)`` sets the wall clock alone, either way;
/// ``sleep(for:)`` moves the wall and boot-time clocks, not the monotonic one), its timers
/// and handed-over work run only in ``run()``, and work meant for another thread runs at
/// once, inline, so that every interleaving a test needs is one it writes down. Nothing
/// here sleeps or reads the real clock.
final class ManualScheduler: Scheduling, @unchecked Sendable {
    private struct Timer {
        let id: Int
        let deadline: TimerDeadline
        let body: () -> Void
    }

    /// The clocks.
    private(set) var clocks: ClockReading
    /// The wall clock.
    var now: Date { clocks.wall }
    private var timers: [Timer] = []
    private var nextID = 0
    private let handedOver = Mutex<[@Sendable () -> Void]>([])
    private var wallClockSetHandlers: [() -> Void] = []

    init(now: Date) { clocks = .at(now) }

    func onWallClockSet(_ body: @escaping () -> Void) { wallClockSetHandlers.append(body) }

    func scheduleTimer(at deadline: TimerDeadline, _ body: @escaping () -> Void) -> ScheduledTimer {
        nextID += 1
        timers.append(Timer(id: nextID, deadline: deadline, body: body))
        return ScheduledTimer(id: .numbered(nextID))
    }

    func cancelTimer(_ timer: ScheduledTimer) {
        guard case .numbered(let id) = timer.id else { return }
        timers.removeAll { $0.id == id }
    }

    func execute(_ body: @escaping @Sendable () -> Void) {
        handedOver.withLock { $0.append(body) }
    }

    /// Inline: the derivation or commit is done when this returns; its result waits in
    /// ``execute(_:)`` for the next ``run()``. Work for a queue in ``holding`` waits
    /// instead until ``releaseHeldWork()``: a commit whose sync has not returned yet, for
    /// as long as the test says.
    func runInBackground(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        guard holding.contains(where: { $0 === queue }) else { return work() }
        held.append(work)
    }

    /// The queues whose work is held (``runInBackground(on:_:)``).
    var holding: [DispatchQueue] = []
    /// The held work, oldest first.
    private(set) var held: [@Sendable () -> Void] = []

    /// Runs the held work, oldest first (its results wait for the next turn, as ever).
    func releaseHeldWork() {
        let work = held
        held = []
        for body in work { body() }
    }

    var isOnLoopThread: Bool { true }

    /// Whether handed-over work is waiting for ``run()`` (a derivation's verdict, a commit).
    var hasHandedOverWork: Bool { handedOver.withLock { !$0.isEmpty } }

    /// What one turn of the loop would do, repeated until nothing is due: handed-over work,
    /// then the timers due now, earliest first.
    func run() {
        while true {
            let work = handedOver.withLock { pending in
                defer { pending.removeAll() }
                return pending
            }
            for body in work { body() }
            let due = dueTimers()
            guard let first = due.first else {
                if work.isEmpty { return }
                continue
            }
            timers.removeAll { $0.id == first.id }
            first.body()
        }
    }

    /// One turn of the loop: the handed-over work and the timers due when it began, but
    /// not what they schedule for the next turn (the next index slice, say).
    func turn() {
        let work = handedOver.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
        for body in work { body() }
        let due = dueTimers()
        for timer in due where timers.contains(where: { $0.id == timer.id }) {
            timers.removeAll { $0.id == timer.id }
            timer.body()
        }
    }

    /// The timers due now, the longest overdue first (then in scheduling order).
    private func dueTimers() -> [Timer] {
        timers.filter { $0.deadline.isDue(at: clocks) }.sorted {
            (-overdue($0.deadline), $0.id) < (-overdue($1.deadline), $1.id)
        }
    }

    /// Seconds from `deadline` to now on its clock (negative while it lies ahead).
    private func overdue(_ deadline: TimerDeadline) -> Double {
        switch deadline {
        case .wall(let date): clocks.wall.timeIntervalSince(date)
        case .monotonic(let instant): clocks.monotonic.timeIntervalSince(instant)
        case .boottime(let instant): clocks.boottime.timeIntervalSince(instant)
        }
    }

    /// Time passes: every clock moves forward; runs what fell due.
    func advance(by seconds: Double) {
        clocks = clocks.advanced(by: seconds)
        run()
    }

    /// The wall clock is set `seconds` forward (back, if negative) and no time passes, as
    /// when NTP corrects it: the kernel reports it (`ECANCELED` on the loop's timerfd), so
    /// the handlers run, then what fell due.
    func stepWall(by seconds: Double) {
        clocks.wall = clocks.wall.addingTimeInterval(seconds)
        for body in wallClockSetHandlers { body() }
        run()
    }

    /// The machine sleeps `seconds`: the wall and boot-time clocks move, the monotonic
    /// one does not; runs what fell due on resume.
    func sleep(for seconds: Double) {
        clocks.wall = clocks.wall.addingTimeInterval(seconds)
        clocks.boottime = clocks.boottime.addingTimeInterval(seconds)
        run()
    }

    /// The earliest armed timer's deadline, as the wall-clock date it fires at if every
    /// clock moves on together from now.
    var nextDeadline: Date? { timers.map { now.addingTimeInterval(-overdue($0.deadline)) }.min() }
}
