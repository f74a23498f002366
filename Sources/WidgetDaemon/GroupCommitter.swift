import Dispatch
import FoundationEssentials
import VarlinkTransport
import WidgetModel
import WidgetStore

/// The `PutTimeline` writes accepted and sealed but not yet durable nor answered, and
/// the group commits that make them durable: the writes gather while the loop reads
/// the calls that are ready, then go to disk together (one key agreement per class,
/// one `fdatasync`).
///
/// Store state changes only on the loop: numbering when a commit starts
/// (`prepareWrites`), indexing and caching once it is durable (`finishWrites`). A lone
/// write (nothing else committing, nothing else waiting) is committed on the loop
/// itself; a batch goes to a worker, which only seals and writes, so that the loop
/// keeps reading the next calls meanwhile. Either way ``reply`` answers a batch's
/// calls as soon as it is durable, and ``announce`` follows once the store has applied it.
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
    /// Durable batches answered but not yet applied to the store (only while their
    /// replies are sent: a reply may start the next call of its connection).
    private var answered: [(batch: [Item], committed: TimelineStore.CommittedWrites)] = []
    /// Whether a lone write may be committed on the loop (see ``startCommits()``).
    let commitsLoneWritesOnLoop: Bool
    /// A monotonic clock in nanoseconds: how long commits take.
    private let nanoseconds: @Sendable () -> UInt64
    /// The slowest recent commit, sealing to sync, in nanoseconds: each commit's time,
    /// or the previous figure less a sixteenth if that is more, so one stall counts for
    /// the next few dozen commits.
    private(set) var recentSlowestCommitNanoseconds: UInt64 = 0
    /// The connection whose call the loop served last (``served(_:)``).
    private var lastCaller: ConnectionID?
    /// How many commits from now a call of another connection still counts: while it
    /// does, a lone write goes to the worker after a slow commit (see ``startCommits()``).
    private(set) var othersActiveCommits = 0
    /// Answers the calls of a durable batch (each write's result, in order).
    var reply: ([Item], [Result<UInt64, StoreError>]) -> Void = { _, _ in }
    /// Announces a batch once the store has applied it (same arguments).
    var announce: ([Item], [Result<UInt64, StoreError>]) -> Void = { _, _ in }

    init(
        store: TimelineStore, scheduler: any Scheduling, commitsLoneWritesOnLoop: Bool = true,
        nanoseconds: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        self.store = store
        self.scheduler = scheduler
        self.commitsLoneWritesOnLoop = commitsLoneWritesOnLoop
        self.nanoseconds = nanoseconds
    }

    /// The longest the slowest recent commit may have taken for the next lone write to
    /// be committed on the loop. A journal append and its `fdatasync` take 0.1–0.3 ms on
    /// a quiet disk; a disk that stalls (syncs of several ms) would hold every host read
    /// that long (docs/BENCHMARKS.md), so its writes go to the worker until its commits
    /// have been quick for a while.
    static let loopCommitLimitNanoseconds: UInt64 = 500_000

    /// How many commits a call of another connection than the last caller's counts for
    /// (``othersActiveCommits``): at a lone writer's pace, 64 commits span 30 ms on a quick
    /// disk and about a second on one whose syncs stall.
    static let othersActiveCommitCount = 64

    /// Counts a commit's time into ``recentSlowestCommitNanoseconds``, and the commit
    /// against ``othersActiveCommits``.
    private func measured(_ nanoseconds: UInt64) {
        let decayed = recentSlowestCommitNanoseconds - recentSlowestCommitNanoseconds / 16
        recentSlowestCommitNanoseconds = max(nanoseconds, decayed)
        if othersActiveCommits > 0 { othersActiveCommits -= 1 }
    }

    /// Notes that the loop is serving a call of `connection` (every call, the cached
    /// replies too): a call of another connection than the last one's means someone
    /// besides a lone writer waits on the loop.
    func served(_ connection: ConnectionID) {
        guard connection != lastCaller else { return }
        if lastCaller != nil { othersActiveCommits = Self.othersActiveCommitCount }
        lastCaller = connection
    }

    /// Whether a lone write may hold the loop for its sync: recent commits were quick,
    /// or the writer is the only caller the loop has served for a while, so that no
    /// other call waits behind a stalled sync (docs/BENCHMARKS.md, "Durable writes, one
    /// connection").
    private var loopMayWaitForSync: Bool {
        recentSlowestCommitNanoseconds < Self.loopCommitLimitNanoseconds || othersActiveCommits == 0
    }

    /// The most writes one group commit takes.
    static let maxWritesPerCommit = 64

    /// How many group commits run at once. While one runs, new writes gather into the
    /// next batch, which then shares one `fdatasync`: the busier the writers, the larger
    /// the batches. Two, so that the next batch is sealed and waiting at the journal
    /// while the running one syncs, and its append starts the moment that sync returns:
    /// with one, the disk idled for the hand-back to the loop, the next batch's
    /// numbering and the hand-over and sealing of it. The journal still appends one
    /// batch at a time, each answered only once its own `fdatasync` returned. Measured
    /// at 8 writers (docs/BENCHMARKS.md, "Durable writes, eight connections").
    static let maxConcurrentCommits = 2

    /// Where group commits run: sealing and the journal append, off the loop, so that it
    /// keeps reading and checking the next calls. Concurrent, so that
    /// `maxConcurrentCommits` above one would let batches of different widgets overlap.
    private static let commitQueue = DispatchQueue(label: "widgetd.commit", attributes: .concurrent)

    /// Whether any accepted write (or delete) is not yet answered, or answered but not yet applied.
    var hasUnansweredWrites: Bool { !pending.isEmpty || !inFlight.isEmpty || !answered.isEmpty || !deletes.isEmpty }

    // MARK: Deletes

    /// A `DeleteTimeline` whose catalog save (its syncs) runs on a worker.
    private final class InFlightDelete: @unchecked Sendable {
        let prepared: TimelineStore.PreparedDelete
        /// Answers the call once the store has applied it; loop only.
        let answer: (Result<Void, StoreError>) -> Void
        /// Set by the worker before it signals `done`.
        var result: Result<Void, StoreError>?
        let done = DispatchSemaphore(value: 0)

        init(_ prepared: TimelineStore.PreparedDelete, answer: @escaping (Result<Void, StoreError>) -> Void) {
            self.prepared = prepared
            self.answer = answer
        }
    }

    /// The deletes running on workers, oldest first.
    private var deletes: [InFlightDelete] = []

    /// Where deletes' saves run: one at a time (the catalog takes its changes in turn anyway).
    private static let deleteQueue = DispatchQueue(label: "widgetd.delete")

    /// Commits a prepared delete off the loop (`TimelineStore.commitDelete`: the
    /// catalog's save and the file's removal), then applies it on the loop and calls
    /// `answer` with its outcome: the loop never waits for a delete's syncs, except a
    /// call that must see it (``settle(_:)-widget``, ``commitAll()``).
    func delete(_ prepared: TimelineStore.PreparedDelete, answer: @escaping (Result<Void, StoreError>) -> Void) {
        let delete = InFlightDelete(prepared, answer: answer)
        deletes.append(delete)
        let committer = SchedulerBound(self, scheduler: scheduler)
        scheduler.runInBackground(on: Self.deleteQueue) { [scheduler] in
            delete.result = TimelineStore.commitDelete(prepared)
            delete.done.signal()
            scheduler.execute { committer.value.finish(delete) }
        }
    }

    /// Takes a worker's delete (waiting for it if needed), applies it and answers it.
    /// Does nothing if it was taken already.
    private func finish(_ delete: InFlightDelete) {
        guard let index = deletes.firstIndex(where: { $0 === delete }) else { return }
        delete.done.wait()
        deletes.remove(at: index)
        let result = delete.result!
        delete.answer(Result { () throws(StoreError) in try store.finishDelete(delete.prepared, result) })
    }

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
        /// How long the worker's commit took; set with `committed`.
        var nanoseconds: UInt64 = 0
        let done = DispatchSemaphore(value: 0)

        init(batch: [Item]) {
            self.batch = batch
            self.widgets = Set(batch.map(\.write.widget))
        }
    }

    /// Starts a group commit of the accepted writes whose widgets no running commit
    /// writes; the others wait for it, so a widget's files are replaced in the order its
    /// calls came, while batches of different widgets overlap.
    ///
    /// A lone write is committed here, on the loop, when no commit runs, its commit is
    /// one journal append (no fold) and recent commits were quick or no other connection
    /// has called for a while (``loopMayWaitForSync``): handing it to a worker
    /// and its result back costs two thread wake-ups, more than the loop would do
    /// meanwhile (docs/BENCHMARKS.md, "Durable writes, one connection"). A batch of
    /// several means writers are busy: it goes to the worker, and the loop gathers the
    /// next batch while this one syncs.
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
        if commitsLoneWritesOnLoop, inFlight.isEmpty, batch.count == 1, loopMayWaitForSync, prepared.isJournalAppendOnly
        {
            let start = nanoseconds()
            let committed = TimelineStore.commit(prepared)
            measured(nanoseconds() &- start)
            complete(batch, committed)
            // Its replies may have started calls that accepted writes.
            return startCommits()
        }
        let commit = InFlightCommit(batch: batch)
        inFlight.append(commit)
        let committer = SchedulerBound(self, scheduler: scheduler)
        scheduler.runInBackground(on: Self.commitQueue) { [scheduler, nanoseconds] in
            let start = nanoseconds()
            commit.committed = TimelineStore.commit(prepared)
            commit.nanoseconds = nanoseconds() &- start
            commit.done.signal()
            scheduler.execute {
                committer.value.finish(commit)
                committer.value.startCommits()
            }
        }
    }

    /// Commits every accepted write now and answers each: applies the batches already
    /// answered, waits for the running commits, then commits the rest on the loop. Any
    /// other call, a device change, a stop, goes through here first, so it sees the
    /// writes as if each had been committed alone before it.
    func commitAll() {
        applyAnswered()
        for delete in deletes { finish(delete) }
        for commit in inFlight { finish(commit) }
        if let commitTimer { scheduler.cancelTimer(commitTimer) }
        commitTimer = nil
        let batch = pending
        pending = []
        guard !batch.isEmpty else { return }
        complete(batch, TimelineStore.commit(store.prepareWrites(batch.map(\.write))))
    }

    /// Waits for the accepted writes a call must see (`MethodTable.WriteWait`): for
    /// `own`, applies the answered batches only (no wait, no sync).
    func settle(_ waits: MethodTable.WriteWait) {
        switch waits {
        case .none: break
        case .own: applyAnswered()
        case .all: if hasUnansweredWrites { commitAll() }
        }
    }

    /// Makes the accepted writes of `widget` durable, answered and applied (a call that
    /// reads and rewrites it: it builds on them), waiting for no other widget's: its
    /// running commit, then its waiting writes committed on their own.
    func settle(_ widget: WidgetID) {
        applyAnswered()
        for delete in deletes where delete.prepared.widget == widget { finish(delete) }
        for commit in inFlight where commit.widgets.contains(widget) { finish(commit) }
        guard pending.contains(where: { $0.write.widget == widget }) else { return }
        let batch = pending.filter { $0.write.widget == widget }
        pending.removeAll { $0.write.widget == widget }
        complete(batch, TimelineStore.commit(store.prepareWrites(batch.map(\.write))))
    }

    /// Takes a worker's commit (waiting for it if needed) and completes it. Does
    /// nothing if it was taken already.
    private func finish(_ commit: InFlightCommit) {
        guard let index = inFlight.firstIndex(where: { $0 === commit }) else { return }
        commit.done.wait()
        inFlight.remove(at: index)
        measured(commit.nanoseconds)
        let committed = commit.committed!
        let batch = commit.batch
        // The bodies now live only here, then in the cache, or die (zeroed) with `batch`.
        commit.committed = nil
        commit.batch = []
        complete(batch, committed)
    }

    /// Answers a durable batch, then applies it to the store and announces it: the
    /// writers wait for their replies only, not for the index and cache bookkeeping.
    /// A reply can start its connection's next call before the batch is applied; that
    /// call commits first (``commitAll()``), which applies it, so it still sees the write.
    private func complete(_ batch: [Item], _ committed: TimelineStore.CommittedWrites) {
        answered.append((batch, committed))
        reply(batch, committed.results)
        applyAnswered()
    }

    /// Applies the answered batches to the store, oldest first, and announces each.
    func applyAnswered() {
        while !answered.isEmpty {
            let (batch, committed) = answered.removeFirst()
            announce(batch, store.finishWrites(committed))
        }
    }
}
