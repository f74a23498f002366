import Dispatch
import FoundationEssentials
import WidgetdPOSIX

/// A timer scheduled through ``Scheduling``, kept to cancel it.
struct ScheduledTimer: Hashable {
    /// The scheduler's own identity for a timer. Not an `AnyHashable`: every write
    /// schedules one (its bookkeeping after the reply), and boxing the id was about
    /// 1 % of a lone write's CPU.
    enum Identity: Hashable {
        /// An `EventLoop`'s.
        case loop(TimerID)
        /// Another scheduler's (a test's manual one) numbering.
        case numbered(Int)
    }

    let id: Identity
}

/// What the service needs of its event loop: the time, timers, and a way back onto the
/// loop's thread for work done elsewhere. `EventLoop` conforms; tests drive the service
/// with a manual scheduler and an injected clock, so no test of a service rule sleeps.
///
/// Time (DESIGN §8): durations run on the monotonic clock, `RequirePasscodeAfterSec=`
/// on the boot-time clock, dates on the wall clock, which may be set at any moment.
///
/// Threading: every requirement but ``execute(_:)`` and ``runInBackground(on:_:)`` is
/// called on the loop's thread; those two may be called from any thread.
protocol Scheduling: AnyObject, Sendable {
    /// The wall clock's time now: for dates only.
    var now: Date { get }

    /// The three clocks now.
    var clocks: ClockReading { get }

    /// Runs `body` on the loop at or soon after `deadline`, on its clock; a deadline in
    /// the past runs on the next turn, after the calls that are ready now.
    @discardableResult
    func scheduleTimer(at deadline: TimerDeadline, _ body: @escaping () -> Void) -> ScheduledTimer

    /// Calls `body` on the loop whenever the wall clock is set: what was chosen from
    /// dates (the current entry, the next date to wake for) is chosen again.
    func onWallClockSet(_ body: @escaping () -> Void)

    /// Cancels a timer; one that already ran or was cancelled is ignored.
    func cancelTimer(_ timer: ScheduledTimer)

    /// Runs `body` on the loop's thread soon. Safe from any thread.
    func execute(_ body: @escaping @Sendable () -> Void)

    /// Runs `work` off the loop (on `queue`): the passcode KDF, a group commit's sealing
    /// and I/O. Its result comes back through ``execute(_:)``.
    func runInBackground(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)

    /// Whether the caller is on the loop's thread.
    var isOnLoopThread: Bool { get }
}

extension Scheduling {
    /// Runs `body` on the loop `delay` seconds from now, on the monotonic clock.
    @discardableResult
    func scheduleTimer(after delay: Double, _ body: @escaping () -> Void) -> ScheduledTimer {
        scheduleTimer(at: .monotonic(clocks.monotonic.addingTimeInterval(delay)), body)
    }

    /// Runs `body` when the loop has handled every call that is ready now (on the
    /// monotonic clock: a wall clock set back must not hold it for the step).
    @discardableResult
    func scheduleOnNextTurn(_ body: @escaping () -> Void) -> ScheduledTimer {
        scheduleTimer(at: .monotonic(clocks.monotonic), body)
    }
}

/// A value that belongs to a scheduler's loop thread, wrapped so that work handed to
/// another thread can carry it back through ``Scheduling/execute(_:)``. Touching the
/// value anywhere but on the loop traps (``LoopBound`` over the protocol).
struct SchedulerBound<Value>: @unchecked Sendable {
    private let scheduler: any Scheduling
    private let wrapped: Value

    /// Wraps `value`, which belongs to `scheduler`'s loop thread.
    init(_ value: Value, scheduler: any Scheduling) {
        self.scheduler = scheduler
        self.wrapped = value
    }

    /// The value; only on the loop's thread.
    var value: Value {
        precondition(scheduler.isOnLoopThread, "a loop-bound value was used off the event loop's thread")
        return wrapped
    }
}
