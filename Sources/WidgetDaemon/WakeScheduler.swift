import FoundationEssentials
import WidgetdPOSIX

/// The loop timers that wake the service for the next thing that changes by itself, one
/// per clock (DESIGN §8): a class-A purge falling due (a duration: monotonic), the
/// inactivity restart (`RequirePasscodeAfterSec=`: boot time, sleep counts), a watched
/// entry's date or a reload due (dates: the wall clock).
///
/// The service says when (``reschedule(purge:inactivity:date:)``); this keeps at most one
/// timer armed per clock, so that many dates cost one timer and re-arming to the same
/// instant costs nothing. Loop only.
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
    /// What runs when one fires.
    var wake: () -> Void = {}

    init(scheduler: any Scheduling) {
        self.scheduler = scheduler
    }

    /// Arms a timer for each instant given (none for `nil`), replacing the ones armed.
    func reschedule(purge: MonotonicInstant?, inactivity: BootInstant?, date: Date?) {
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
        wake()
    }
}
