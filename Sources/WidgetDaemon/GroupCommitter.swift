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
/// keeps reading the next calls meanwhile. Either way its ``delegate`` answers a batch's
/// calls as soon as it is durable, and announces it once the store has applied it
/// (``GroupCommitterDelegate``).
///
/// No call waits on the loop for a commit it must see: it is parked, its reply
/// deferred, and run on the loop once that commit is durable and applied, while the loop
/// serves everyone else (``whenSettled(_:_:)`` for a call that rewrites one widget,
/// ``whenCommitted(_:)`` for a device change that must come between the writes). Only
/// ``commitAll()`` (a stop, a wipe) waits on the loop: nothing else may run across them.
final class GroupCommitter {
    /// One accepted write and the call to answer.
    typealias Item = (context: CallContext, write: TimelineStore.TimelineWrite)

    private let store: any StoreTimelinesFace
    private let scheduler: any Scheduling
    /// The accepted writes not yet handed to a commit, each with its place in the order
    /// of acceptance (``whenCommitted(_:)``).
    private var pending: [Ticketed] = []
    private typealias Ticketed = (item: Item, ticket: UInt64)
    /// The ticket of the next write accepted.
    private var nextTicket: UInt64 = 0
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
    /// Who answers and announces each batch (the service, which owns this committer);
    /// `nil`: nobody, a committer of a test's own that only counts its commits.
    weak var delegate: (any GroupCommitterDelegate)?

    init(
        store: any StoreTimelinesFace, scheduler: any Scheduling, commitsLoneWritesOnLoop: Bool = true,
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

    // MARK: Parked calls

    /// A call parked until its widget's accepted writes are durable and applied
    /// (``whenSettled(_:_:)``), or a write accepted behind such a call (it keeps its place).
    private struct Parked {
        let widget: WidgetID
        /// Whether it waits for the widget's writes (a call that reads and rewrites it),
        /// or only for the parked calls before it (a write accepted behind one).
        let waitsForWrites: Bool
        let run: () -> Void
    }

    /// The parked calls, in the order they came.
    private var parked: [Parked] = []

    /// Changes parked until the writes and deletes accepted before them are durable and
    /// applied (``whenCommitted(_:)``), in the order they came, each with the first
    /// ticket it does not wait for.
    private var barriers: [(ticket: UInt64, run: () -> Void)] = []

    /// Whether any of `widget`'s accepted writes or deletes is not yet durable and applied.
    private func isBusy(_ widget: WidgetID) -> Bool {
        pending.contains { $0.item.write.widget == widget } || inFlight.contains { $0.widgets.contains(widget) }
            || deletes.contains { $0.prepared.widget == widget }
    }

    /// Runs `body` on the loop once `widget`'s accepted writes and deletes are durable
    /// and applied: now if none is outstanding, else when the last of them is, without
    /// holding the loop meanwhile (a call that reads and rewrites the widget builds on
    /// them: `AppendEntries`, `DeleteTimeline`). Calls parked for one widget run in the
    /// order they came, and a write of it accepted meanwhile waits behind them.
    func whenSettled(_ widget: WidgetID, _ body: @escaping () -> Void) {
        applyAnswered()
        guard isBusy(widget) || parked.contains(where: { $0.widget == widget }) else { return body() }
        parked.append(Parked(widget: widget, waitsForWrites: true, run: body))
    }

    /// Runs the parked calls whose widgets are settled now, in order; a call of a widget
    /// still busy holds the later calls of that widget back, not the others'.
    private func runParked() {
        guard !parked.isEmpty, !runningParked else { return }
        runningParked = true
        defer { runningParked = false }
        var held = Set<WidgetID>()
        var index = 0
        while index < parked.count {
            let call = parked[index]
            if held.contains(call.widget) || (call.waitsForWrites && isBusy(call.widget)) {
                held.insert(call.widget)
                index += 1
                continue
            }
            parked.remove(at: index)
            // What it accepts goes ahead of the calls of its widget parked behind it.
            unparked = call.widget
            call.run()
            unparked = nil
            // Its run may have answered, accepted or settled anything: start over.
            held.removeAll()
            index = 0
        }
    }

    /// Whether ``runParked()`` is running (it is not entered twice).
    private var runningParked = false
    /// The widget of the parked call running now: its writes are not parked behind the
    /// later calls of that widget, which come after it.
    private var unparked: WidgetID?

    /// Runs `body` on the loop once every write and delete accepted before now is
    /// durable and applied and none other is running, without holding the loop
    /// meanwhile: a device change that must come between the writes, in the order they
    /// came (an unlock, which may wipe after too many failed attempts; a passcode
    /// change). The writes accepted after it wait for it; changes wait for each other.
    func whenCommitted(_ body: @escaping () -> Void) {
        applyAnswered()
        let ticket = nextTicket
        guard !barriers.isEmpty || !isClear(before: ticket) else { return body() }
        barriers.append((ticket, body))
    }

    /// Whether every write and delete before `ticket` is durable and applied, and no
    /// commit or delete runs.
    private func isClear(before ticket: UInt64) -> Bool {
        inFlight.isEmpty && deletes.isEmpty && !pending.contains { $0.ticket < ticket }
    }

    /// Runs the changes parked by ``whenCommitted(_:)`` whose writes are done, in order,
    /// then lets the writes accepted after them commit.
    private func runBarriers() {
        guard !barriers.isEmpty else { return }
        while let first = barriers.first, isClear(before: first.ticket) {
            barriers.removeFirst()
            first.run()
        }
        if barriers.isEmpty, !pending.isEmpty, commitTimer == nil {
            commitTimer = scheduler.scheduleOnNextTurn { [weak self] in
                self?.commitTimer = nil
                self?.startCommits()
            }
        }
    }

    /// After a commit or delete finished: the parked calls and changes it let through.
    private func runWaiting() {
        runParked()
        runBarriers()
    }

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

    /// The queues commits and deletes run on (tests hold their work: a sync that has not returned).
    static var workerQueues: [DispatchQueue] { [commitQueue, deleteQueue] }

    /// The deletes running on workers, oldest first.
    private var deletes: [InFlightDelete] = []

    /// Where deletes' saves run: one at a time (the catalog takes its changes in turn anyway).
    private static let deleteQueue = DispatchQueue(label: "widgetd.delete")

    /// Commits a prepared delete off the loop (`TimelineStore.commitDelete`: the
    /// catalog's save and the file's removal), then applies it on the loop and calls
    /// `answer` with its outcome: the loop never waits for a delete's syncs (a call that
    /// must see it is parked until it is applied, ``whenSettled(_:_:)``), except in
    /// ``commitAll()``.
    func delete(_ prepared: TimelineStore.PreparedDelete, answer: @escaping (Result<Void, StoreError>) -> Void) {
        let delete = InFlightDelete(prepared, answer: answer)
        deletes.append(delete)
        let committer = SchedulerBound(self, scheduler: scheduler)
        scheduler.runInBackground(on: Self.deleteQueue) { [scheduler] in
            delete.result = TimelineStore.commitDelete(prepared)
            delete.done.signal()
            scheduler.execute {
                committer.value.finish(delete)
                committer.value.runWaiting()
            }
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
        let widget = item.write.widget
        if unparked != widget, parked.contains(where: { $0.widget == widget }) {
            // Behind a call of its widget still parked: it keeps its place after it.
            parked.append(Parked(widget: widget, waitsForWrites: false) { [unowned self] in accept(item) })
            return
        }
        pending.append((item, nextTicket))
        nextTicket += 1
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
        var ticketed: [Ticketed] = []
        var waiting: [Ticketed] = []
        // Writes accepted after a parked device change wait for it (``whenCommitted(_:)``).
        let barrier = barriers.first?.ticket ?? .max
        for entry in pending {
            if busy.contains(entry.item.write.widget) || entry.ticket >= barrier {
                waiting.append(entry)
            } else {
                ticketed.append(entry)
            }
        }
        pending = waiting
        guard !ticketed.isEmpty else { return }
        let batch = ticketed.map(\.item)
        let prepared = store.prepareWrites(batch.map(\.write))
        if commitsLoneWritesOnLoop, inFlight.isEmpty, batch.count == 1, loopMayWaitForSync, prepared.isJournalAppendOnly
        {
            let start = nanoseconds()
            let committed = TimelineStore.commit(prepared)
            measured(nanoseconds() &- start)
            complete(batch, committed)
            runWaiting()
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
                committer.value.runWaiting()
                committer.value.startCommits()
            }
        }
    }

    /// Commits every accepted write now and answers each: applies the batches already
    /// answered, waits for the running commits and deletes, commits the rest on the
    /// loop, then runs the parked calls and changes and commits what they accept, until
    /// nothing is left. The one wait on the loop left: a `Wipe` and a stop go through
    /// here first, so that a write accepted before them is erased with the rest, or
    /// durable when the daemon exits.
    func commitAll() {
        repeat {
            applyAnswered()
            for delete in deletes { finish(delete) }
            for commit in inFlight { finish(commit) }
            if let commitTimer { scheduler.cancelTimer(commitTimer) }
            commitTimer = nil
            let batch = pending.map(\.item)
            pending = []
            if !batch.isEmpty { complete(batch, TimelineStore.commit(store.prepareWrites(batch.map(\.write)))) }
            // The parked calls and changes run now, and what they accept is committed too.
            runWaiting()
        } while hasUnansweredWrites
    }

    /// Waits for the accepted writes a call must see (`MethodTable.WriteWait`): for
    /// `own`, applies the answered batches only (no wait, no sync).
    func settle(_ waits: MethodTable.WriteWait) {
        switch waits {
        case .none: break
        case .own: applyAnswered()
        }
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
        delegate?.reply(batch, committed.results)
        applyAnswered()
    }

    /// Applies the answered batches to the store, oldest first, and announces each.
    func applyAnswered() {
        while !answered.isEmpty {
            let (batch, committed) = answered.removeFirst()
            delegate?.announce(batch, store.finishWrites(committed))
        }
    }
}

/// What hears of a group commit's batches, on the loop, in this order for each batch:
/// ``reply(_:_:)`` as soon as it is durable, then ``announce(_:_:)`` once the store has
/// applied it (batches are applied and announced in the order they were answered). A
/// reply may start a call of the writer's connection before its batch is announced:
/// that call applies the answered batches first (``GroupCommitter/applyAnswered()``),
/// which announces them then.
protocol GroupCommitterDelegate: AnyObject {
    /// Answers the calls of a durable batch: each write's result (its generation, or the
    /// store's error), in the order of `batch`.
    func reply(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>])
    /// Announces a batch the store has applied (the same arguments, the results as the
    /// store applied them): reloads, watches, the next wake-up.
    func announce(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>])
}
