import Dispatch
import FoundationEssentials
import WidgetdPOSIX

/// The event loop is the daemon's scheduler: its timers, its hand-over from threads,
/// and Dispatch queues for the work done off it.
extension EventLoop: Scheduling {
    @discardableResult
    func scheduleTimer(at deadline: TimerDeadline, _ body: @escaping () -> Void) -> ScheduledTimer {
        ScheduledTimer(id: .loop(schedule(at: deadline, body)))
    }

    func cancelTimer(_ timer: ScheduledTimer) {
        guard case .loop(let id) = timer.id else { return }
        cancel(id)
    }

    func runInBackground(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
