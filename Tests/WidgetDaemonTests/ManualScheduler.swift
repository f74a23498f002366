import Dispatch
import Foundation
import Synchronization

@testable import WidgetDaemon

/// A scheduler the test drives by hand: its clock moves only when told (``advance(by:)``),
/// its timers and handed-over work run only in ``run()``, and work meant for another
/// thread runs at once, inline, so that every interleaving a test needs is one it writes
/// down. Nothing here sleeps or reads the real clock.
final class ManualScheduler: Scheduling, @unchecked Sendable {
    private struct Timer {
        let id: Int
        let deadline: Date
        let body: () -> Void
    }

    /// The clock.
    private(set) var now: Date
    private var timers: [Timer] = []
    private var nextID = 0
    private let handedOver = Mutex<[@Sendable () -> Void]>([])

    init(now: Date) { self.now = now }

    func scheduleTimer(at deadline: Date, _ body: @escaping () -> Void) -> ScheduledTimer {
        nextID += 1
        timers.append(Timer(id: nextID, deadline: deadline, body: body))
        return ScheduledTimer(id: AnyHashable(nextID))
    }

    func cancelTimer(_ timer: ScheduledTimer) {
        guard let id = timer.id.base as? Int else { return }
        timers.removeAll { $0.id == id }
    }

    func execute(_ body: @escaping @Sendable () -> Void) {
        handedOver.withLock { $0.append(body) }
    }

    /// Inline: the derivation or commit is done when this returns; its result waits in
    /// ``execute(_:)`` for the next ``run()``.
    func runInBackground(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) { work() }

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
            let due = timers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
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
        let due = timers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        for timer in due where timers.contains(where: { $0.id == timer.id }) {
            timers.removeAll { $0.id == timer.id }
            timer.body()
        }
    }

    /// Moves the clock forward and runs what fell due.
    func advance(by seconds: Double) {
        now = now.addingTimeInterval(seconds)
        run()
    }

    /// The earliest armed timer's deadline.
    var nextDeadline: Date? { timers.map(\.deadline).min() }
}
