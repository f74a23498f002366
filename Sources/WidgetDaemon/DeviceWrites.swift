import Dispatch

/// The device side's durable writes, one at a time and synced off the loop: a passcode
/// request's keybag (the count of a wrong passcode, its reset, a passcode change), the
/// settings file of a `SetSettings`, and the wipe, which must not run while either is
/// being written. A slow disk's syncs then hold only the call that asked for them
/// (parked until its write is durable), never another peer's calls or the watchdog.
///
/// Each ``take(_:)`` is a turn: it begins on the loop once every turn before it is
/// done, reads the state it changes then (so that two `SetSettings` in a row each build
/// on the one before), hands its write to ``write(_:then:)``, and says when it is done.
///
/// Threading: loop only, but for the writes it hands to ``queue``.
final class DeviceWrites {
    /// Where the writes run (a test holds it to stand for a sync that has not returned).
    static let queue = DispatchQueue(label: "widgetd.device-writes", qos: .userInitiated)

    private let scheduler: any Scheduling
    private var waiting: [(_ done: @escaping () -> Void) -> Void] = []
    private var isRunning = false

    init(scheduler: any Scheduling) {
        self.scheduler = scheduler
    }

    /// Whether a turn is running (its write may be on its way to the disk).
    var isBusy: Bool { isRunning }

    /// Runs `turn` on the loop once the turns before it are done; it calls `done` (at
    /// once or later, on the loop) when it is.
    func take(_ turn: @escaping (_ done: @escaping () -> Void) -> Void) {
        waiting.append(turn)
        startNext()
    }

    /// Runs `work` on ``queue``, then `then` with its result on the loop.
    func write<Outcome>(_ work: @escaping @Sendable () -> Outcome, then: @escaping (Outcome) -> Void) {
        let completion = SchedulerBound(then, scheduler: scheduler)
        scheduler.runInBackground(on: Self.queue) { [scheduler] in
            let outcome = SendableOutcome(value: work())
            scheduler.execute { completion.value(outcome.value) }
        }
    }

    private func startNext() {
        guard !isRunning, !waiting.isEmpty else { return }
        isRunning = true
        let turn = waiting.removeFirst()
        turn { [weak self] in
            guard let self else { return }
            isRunning = false
            startNext()
        }
    }
}

/// A write's outcome on its way back to the loop. The outcomes handed over (a written
/// keybag, a store error) are values no one else holds.
private struct SendableOutcome<Value>: @unchecked Sendable {
    let value: Value
}
