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

    typealias Turn = (_ done: @escaping () -> Void) -> Void

    private let scheduler: any Scheduling
    /// The turns waiting, from `head` on (taken without moving the rest: a crowd of
    /// them is run in linear time).
    private var waiting: [Turn?] = []
    private var head = 0
    private var isRunning = false

    init(scheduler: any Scheduling) {
        self.scheduler = scheduler
    }

    /// Whether a turn is running (its write may be on its way to the disk).
    var isBusy: Bool { isRunning }

    /// Runs `turn` on the loop once the turns before it are done; it calls `done` (at
    /// once or later, on the loop) when it is.
    func take(_ turn: @escaping Turn) {
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

    /// Runs the waiting turns in order, one at a time. A loop, not a recursion: a turn
    /// done at once (settings left unchanged) lets the next begin here, however many wait.
    private func startNext() {
        while !isRunning, let turn = takeFirst() {
            isRunning = true
            let state = TurnState()
            turn { [weak self] in
                guard let self else { return }
                isRunning = false
                if state.isStarting { state.finishedAtOnce = true } else { startNext() }
            }
            state.isStarting = false
            guard state.finishedAtOnce else { return }
        }
    }

    /// The oldest waiting turn, if any.
    private func takeFirst() -> Turn? {
        guard head < waiting.count else { return nil }
        let turn = waiting[head]
        waiting[head] = nil
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        return turn
    }

    /// Whether a turn is still being started, and whether it finished meanwhile.
    private final class TurnState {
        var isStarting = true
        var finishedAtOnce = false
    }
}

/// A write's outcome on its way back to the loop. The outcomes handed over (a written
/// keybag, a store error) are values no one else holds.
private struct SendableOutcome<Value>: @unchecked Sendable {
    let value: Value
}
