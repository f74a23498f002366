import Logging
import StoreLedger
import VarlinkTransport
import WidgetdPOSIX
import WidgetModel
import WidgetStore
import WidgetdPOSIX

/// The store's metadata index, filled in slices between calls once the loop runs, and
/// the calls that wait for it to be complete (``IndexWaiters``).
///
/// Start-up therefore does not grow with the number of stored timelines: each slice
/// verifies a few stored files (a few ms), so calls arriving meanwhile barely wait.
/// What it finds and the calls that waited go to its ``delegate``
/// (``BackgroundIndexDelegate``), which decides them under the state then in force. A
/// slice that fails stops the filling (fail closed: nothing is judged on a partial
/// index): every waiting call is refused with its error, and the next call that waits
/// starts the slices again.
///
/// Threading: the loop's, like the service that owns it.
final class BackgroundIndex {
    private let store: any StoreTimelinesFace
    private let scheduler: any Scheduling
    private let logger: Logger

    /// How many stored timelines are verified per loop turn. A variable so that a test
    /// can index a small store over many turns.
    var slice = 32
    /// Whether every stored timeline is in the store's index.
    private(set) var isComplete = false
    /// The calls waiting for the index to complete.
    private(set) var waiters = IndexWaiters()
    /// Whether filling stopped on an error: the next call that waits starts it again.
    private var stopped = false

    /// Who hears what the slices find and answers the calls that waited (the service,
    /// which owns this index); `nil`: nobody.
    weak var delegate: (any BackgroundIndexDelegate)?

    init(store: any StoreTimelinesFace, scheduler: any Scheduling, logger: Logger) {
        self.store = store
        self.scheduler = scheduler
        self.logger = logger
    }

    /// Starts filling, from the loop's next turn.
    func start() { scheduleSlice() }

    /// Verifies up to `limit` more stored timelines into the index, hands over what it
    /// found, and schedules the next slice if files remain.
    func fillNext(limit: Int) throws(StoreError) {
        guard !isComplete else { return }
        guard let found = try store.indexNextTimelines(limit: limit) else {
            isComplete = true
            // Indexing allocated and freed per file; give those pages back now that it is done.
            ProcessHygiene.returnFreeMemory()
            delegate?.indexCompleted(answering: waiters.takeAll())
            return
        }
        delegate?.indexed(found)
        scheduleSlice()
    }

    /// Indexes the next slice when the loop has answered the calls that are ready.
    private func scheduleSlice() {
        scheduler.scheduleOnNextTurn { [weak self] in
            guard let self else { return }
            do throws(StoreError) { try fillNext(limit: slice) } catch {
                logger.error("stored timelines not indexed", event: "index_failed", error: error)
                stopped = true
                // Each waiting call gets the error that a synchronous completion would have thrown.
                for waiter in waiters.takeAll() where waiter.context.isOpen {
                    delegate?.indexFailed(refusing: waiter, error)
                }
            }
        }
    }

    /// Queues a call until the index is complete (restarting a stopped filling); throws
    /// `TryAgainLater` when ``IndexWaiters/limit`` calls wait already.
    func wait(_ waiter: IndexWaiters.Waiter) throws(ServiceError) {
        guard !waiters.isFull else { throw .tryAgainLater(retryAfter: IndexWaiters.retryAfter) }
        waiters.add(waiter)
        if stopped {
            stopped = false
            scheduleSlice()
        }
    }

    /// Drops the waiting calls of a closed connection.
    func remove(connection: ConnectionID) { waiters.remove(connection: connection) }
}

/// What hears of the background index, on the loop, in this order: ``indexed(_:)`` after
/// each slice, with what it found, then ``indexCompleted(answering:)`` once, when no
/// stored timeline is left to index. A slice that fails instead refuses each waiting call
/// still open (``indexFailed(refusing:_:)``); the next call that waits restarts the
/// slices, and the order starts again.
protocol BackgroundIndexDelegate: AnyObject {
    /// The metadata a slice found (only that slice's: a pass over everything per slice
    /// would make indexing quadratic in the number of stored timelines).
    func indexed(_ found: [TimelineMetadata])
    /// The index is complete: the calls that waited, oldest first, to be decided under
    /// the state in force now.
    func indexCompleted(answering waiters: [IndexWaiters.Waiter])
    /// A slice failed: a waiting call (still open) and the error it gets.
    func indexFailed(refusing waiter: IndexWaiters.Waiter, _ error: StoreError)
}
