import Dispatch
import VarlinkTransport
import WidgetStore

/// The `Unlock` and `SetPasscode` calls, one at a time: the checks on the loop, the KDF
/// off it, the derived keys back on the loop (where ``finish`` has them judged, the
/// keybag written off the loop, and the change applied before the answer). The next
/// request begins only once ``finish`` says it is done: a change parked behind the
/// accepted writes (`GroupCommitter.whenCommitted`) and its keybag write
/// (``DeviceWrites``) is applied before the next request reads the keybag.
///
/// Threading: loop only, but for the derivation it hands to a background queue.
final class PasscodeQueue {
    private let scheduler: any Scheduling
    private var waiting: [PasscodeRequest] = []
    private var isDeriving = false
    /// Judges and applies a request's derived keys (or its failure) and answers its
    /// call, then calls `done` (at once or later, on the loop).
    var finish: (PasscodeRequest, Result<DerivedRequest, StoreError>, _ done: @escaping () -> Void) -> Void = { _, _, done in done() }
    /// Answers a request refused before any derivation (checks, delays).
    var refuse: (PasscodeRequest, StoreError) -> Void = { _, _ in }

    init(scheduler: any Scheduling) {
        self.scheduler = scheduler
    }

    /// Queues `request` behind the ones waiting, and starts it if none runs.
    func enqueue(_ request: PasscodeRequest) {
        waiting.append(request)
        startNext()
    }

    /// Forgets the waiting requests of a closed connection (the running one finishes).
    func removeRequests(of connection: ConnectionID) {
        waiting.removeAll { $0.context.connection == connection }
    }

    /// Starts the oldest waiting request unless one is being derived.
    private func startNext() {
        while !isDeriving, !waiting.isEmpty {
            let request = waiting.removeFirst()
            let work: PasscodeDerivationWork
            do throws(StoreError) { work = try request.begin() } catch {
                refuse(request, error)
                continue
            }
            isDeriving = true
            let completion = SchedulerBound((queue: self, request: request), scheduler: scheduler)
            scheduler.runInBackground(on: .global(qos: .userInitiated)) { [scheduler] in
                let outcome = work.derive()
                scheduler.execute { completion.value.queue.finished(completion.value.request, outcome) }
            }
        }
    }

    private func finished(_ request: PasscodeRequest, _ outcome: Result<DerivedRequest, StoreError>) {
        finish(request, outcome) { [weak self] in
            self?.isDeriving = false
            self?.startNext()
        }
    }
}
