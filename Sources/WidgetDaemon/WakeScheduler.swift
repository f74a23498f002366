import FoundationEssentials

/// The one loop timer that wakes the service for the next thing that changes by itself:
/// a class-A purge falling due, a watched entry's date, a reload due.
///
/// The service says when (``reschedule(to:)``); this keeps a single timer armed for
/// that instant, so that many dates cost one timer and re-arming to the same date costs
/// nothing. Loop only.
final class WakeScheduler {
    private let scheduler: any Scheduling
    private var timer: ScheduledTimer?
    /// When the timer fires; `nil` while none is armed.
    private(set) var date: Date?
    /// What runs when it fires.
    var wake: () -> Void = {}

    init(scheduler: any Scheduling) {
        self.scheduler = scheduler
    }

    /// Arms the timer for `next` (none for `nil`), replacing the one armed.
    func reschedule(to next: Date?) {
        guard next != date else { return }
        if let timer { scheduler.cancelTimer(timer) }
        date = next
        timer = next.map { scheduler.scheduleTimer(at: $0) { [weak self] in self?.fired() } }
    }

    private func fired() {
        timer = nil
        date = nil
        wake()
    }
}
