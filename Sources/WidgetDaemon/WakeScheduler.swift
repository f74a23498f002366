import FoundationEssentials
import WidgetdPOSIX

/// The loop timers that wake their owner for the next thing that changes by itself, one
/// per clock (DESIGN §8): a class-A purge falling due (a duration: monotonic), the
/// inactivity restart (`RequirePasscodeAfterSec=`: boot time, sleep counts), a watched
/// entry's date or a reload due (dates: the wall clock).
///
/// Each owner arms what it runs: the ``DeviceController`` its key deadlines (the purge
/// and the inactivity restart), the ``TimelineService`` its dates. The owner says when
/// (``reschedule(purge:inactivity:date:)``); this keeps at most one timer armed per
/// clock, so that many dates cost one timer and re-arming to the same instant costs
/// nothing, and wakes its ``delegate`` when one fires. Loop only.
final class WakeScheduler {
    private struct Armed {
        let deadline: TimerDeadline
        let timer: ScheduledTimer
    }

    private let scheduler: any Scheduling
    private var purgeTimer: Armed?
    private var inactivityTimer: Armed?
    private var dateTimer: Armed?
    /// The date the wall-clock timer fires at; `nil` while none is armed.
    var date: Date? {
        guard case .wall(let date) = dateTimer?.deadline else { return nil }
        return date
    }
    /// Who is woken when a timer fires (its owner); `nil`: nobody.
    weak var delegate: (any WakeSchedulerDelegate)?

    init(scheduler: any Scheduling) {
        self.scheduler = scheduler
    }

    /// Arms a timer for each instant given (none for `nil` or left out), replacing the
    /// ones armed.
    func reschedule(purge: MonotonicInstant? = nil, inactivity: BootInstant? = nil, date: Date? = nil) {
        arm(&purgeTimer, purge.map { .monotonic($0) })
        arm(&inactivityTimer, inactivity.map { .boottime($0) })
        arm(&dateTimer, date.map { .wall($0) })
    }

    private func arm(_ slot: inout Armed?, _ next: TimerDeadline?) {
        guard next != slot?.deadline else { return }
        if let armed = slot { scheduler.cancelTimer(armed.timer) }
        slot = next.map { deadline in
            Armed(deadline: deadline, timer: scheduler.scheduleTimer(at: deadline) { [weak self] in self?.fired(deadline) })
        }
    }

    private func fired(_ deadline: TimerDeadline) {
        if purgeTimer?.deadline == deadline { purgeTimer = nil }
        if inactivityTimer?.deadline == deadline { inactivityTimer = nil }
        if dateTimer?.deadline == deadline { dateTimer = nil }
        delegate?.wakeUp()
    }
}

/// What a ``WakeScheduler`` wakes, on the loop, once per timer that fires (the timer is
/// disarmed first): it does what fell due, whichever clock it was on, and says when to
/// wake next (``WakeScheduler/reschedule(purge:inactivity:date:)``).
protocol WakeSchedulerDelegate: AnyObject {
    /// A wake timer fired: whatever is due now is done.
    func wakeUp()
}
