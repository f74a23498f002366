import Dispatch
import FoundationEssentials
import VarlinkTransport
import WidgetModel
import WidgetStore

/// The `PutTimeline` writes accepted and sealed but not yet durable nor answered, and
/// the group commits that make them durable: the writes gather while the loop reads
/// the calls that are ready, then go to disk together (one key agreement per class,
/// one `fdatasync`) off the loop.
///
/// Store state changes only on the loop: numbering when a commit starts
/// (`prepareWrites`), indexing and caching when it is done (`finishWrites`); the worker
/// only seals and writes. ``answer`` replies to the calls once their files are durable.
final class GroupCommitter {
    /// One accepted write and the call to answer.
    typealias Item = (context: CallContext, write: TimelineStore.TimelineWrite)

    private let store: TimelineStore
    private let scheduler: any Scheduling
    private var pending: [Item] = []
    /// The loop timer that starts a commit of `pending`.
    private var commitTimer: ScheduledTimer?
    /// The group commits running on worker threads, oldest first (no two write one widget).
    private var inFlight: [InFlightCommit] = []
    /// Announces and answers a committed batch (each write's result, in order).
    var answer: ([Item], [Result<UInt64, StoreError>]) -> Void = { _, _ in }

    init(store: TimelineStore, scheduler: any Scheduling) {
        self.store = store
        self.scheduler = scheduler
    }

    /// The most writes one group commit takes.
    static let maxWritesPerCommit = 64

    /// How many group commits run at once. While one runs, new writes gather into the
    /// next batch, which then shares one key agreement per class and one `fdatasync`:
    /// the busier the writers, the larger the batches. Measured at 8 writers
    /// (docs/BENCHMARKS.md): one at a time beat two or four, whose smaller batches each
    /// paid their own X25519 exchanges and sync.
    static let maxConcurrentCommits = 1

    /// Where group commits run: sealing and the journal append, off the loop, so that it
    /// keeps reading and checking the next calls. Concurrent, so that
    /// `maxConcurrentCommits` above one would let batches of different widgets overlap.
    private static let commitQueue = DispatchQueue(label: "widgetd.commit", attributes: .concurrent)

    /// Whether any accepted write is not yet answered.
    var hasUnansweredWrites: Bool { !pending.isEmpty || !inFlight.isEmpty }

    /// Accepts a sealed write; it is committed with the others the loop reads this turn.
    func accept(_ item: Item) {
        pending.append(item)
        if pending.count >= Self.maxWritesPerCommit {
            startCommits()
        } else if commitTimer == nil {
            // Runs when the loop has dispatched every call that is ready now.
            commitTimer = scheduler.scheduleOnNextTurn { [weak self] in
                self?.commitTimer = nil
                self?.startCommits()
            }
        }
    }

    /// A group commit running on `commitQueue`: its calls, and the worker's result.
    private final class InFlightCommit: @unchecked Sendable {
        /// The calls; loop only.
        var batch: [Item]
        /// The widgets it writes; loop only.
        let widgets: Set<WidgetID>
        /// Set by the worker before it signals `done`.
        var committed: TimelineStore.CommittedWrites?
        let done = DispatchSemaphore(value: 0)

        init(batch: [Item]) {
            self.batch = batch
            self.widgets = Set(batch.map(\.write.widget))
        }
    }

    /// Starts a group commit of the accepted writes whose widgets no running commit
    /// writes; the others wait for it, so a widget's files are replaced in the order its
    /// calls came, while batches of different widgets overlap.
    private func startCommits() {
        if let commitTimer { scheduler.cancelTimer(commitTimer) }
        commitTimer = nil
        guard !pending.isEmpty, inFlight.count < Self.maxConcurrentCommits else { return }
        let busy = inFlight.reduce(into: Set<WidgetID>()) { $0.formUnion($1.widgets) }
        var batch: [Item] = []
        var waiting: [Item] = []
        for item in pending {
            if busy.contains(item.write.widget) { waiting.append(item) } else { batch.append(item) }
        }
        pending = waiting
        guard !batch.isEmpty else { return }
        let prepared = store.prepareWrites(batch.map(\.write))
        let commit = InFlightCommit(batch: batch)
        inFlight.append(commit)
        let committer = SchedulerBound(self, scheduler: scheduler)
        scheduler.runInBackground(on: Self.commitQueue) { [scheduler] in
            commit.committed = TimelineStore.commit(prepared)
            commit.done.signal()
            scheduler.execute {
                committer.value.finish(commit)
                committer.value.startCommits()
            }
        }
    }

    /// Commits every accepted write now and answers each: waits for the running
    /// commits, then commits the rest on the loop. Any other call, a device change, a
    /// stop, goes through here first, so it sees the writes as if each had been
    /// committed alone before it.
    func commitAll() {
        for commit in inFlight { finish(commit) }
        if let commitTimer { scheduler.cancelTimer(commitTimer) }
        commitTimer = nil
        let batch = pending
        pending = []
        guard !batch.isEmpty else { return }
        answer(batch, store.putTimelines(batch.map(\.write)))
    }

    /// Applies a worker's commit (waiting for it if needed) and answers its calls.
    /// Does nothing if it was applied already.
    private func finish(_ commit: InFlightCommit) {
        guard let index = inFlight.firstIndex(where: { $0 === commit }) else { return }
        commit.done.wait()
        inFlight.remove(at: index)
        let results = store.finishWrites(commit.committed!)
        let batch = commit.batch
        // The bodies now live only in the cache, or die (zeroed) with `batch`.
        commit.committed = nil
        commit.batch = []
        answer(batch, results)
    }
}
