import Foundation
import SecureMemory
import Synchronization
import Testing
import VarlinkTransport
import WidgetModel
import WidgetStore
import WidgetdPOSIX

@testable import WidgetDaemon

/// Where a group commit runs and when its writers are answered (`GroupCommitter`): a
/// lone write on the loop in the turn that reads it, a batch on the worker; the reply as
/// soon as the batch is durable, the store's bookkeeping after it, and still every read
/// that follows sees the write.
@Suite struct GroupCommitterTests {
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!
    static let mail = ServiceHarness.widgets[.completeUnlessOpen]!
    static let clock = ServiceHarness.widgets[.none]!

    /// The first journal record's magic, read from the disk: the batch was written.
    static func journalHoldsARecord(_ harness: ServiceHarness) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: "\(harness.root)/state/journal") else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data("WDJR".utf8)
    }

    @Test func aLoneWriteIsCommittedAndAnsweredOnTheLoopInTheTurnThatReadIt() throws {
        let harness = try ServiceHarness()
        let write = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather), run: false)
        #expect(!write.isAnswered)
        harness.scheduler.turn()
        #expect(write.isAnswered && write.error == nil, "\(write.replies)")
        // Nothing was handed to a worker, so nothing waits to be handed back.
        #expect(!harness.scheduler.hasHandedOverWork)
    }

    @Test func writesReadInOneTurnAreOneBatchOnTheWorker() throws {
        let harness = try ServiceHarness()
        let first = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather), run: false)
        let second = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock), run: false)
        harness.scheduler.turn()
        // The worker (inline under this scheduler) committed them; the loop answers next turn.
        #expect(!first.isAnswered && !second.isAnswered)
        #expect(harness.scheduler.hasHandedOverWork)
        harness.scheduler.turn()
        #expect(first.isAnswered && first.error == nil && second.isAnswered && second.error == nil)
    }

    @Test(arguments: [1, 2]) func theWriterIsAnsweredOnceDurableBeforeTheStoreAppliesTheBatch(writes: Int) throws {
        let harness = try ServiceHarness()
        let checking = CheckingDelegate(harness)
        harness.service.timelines.committer.delegate = checking
        let put = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail), run: false)
        if writes == 2 { harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock), run: false) }
        harness.scheduler.run()
        #expect(put.isAnswered && put.error == nil)
        #expect(checking.events == ["reply", "announce"])
    }

    /// Watches the service's committer: checks the disk and the store when a batch is
    /// answered and when it is announced, notes which came first, and passes it on.
    final class CheckingDelegate: GroupCommitterDelegate {
        let harness: ServiceHarness
        private(set) var events: [String] = []
        init(_ harness: ServiceHarness) { self.harness = harness }

        func reply(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>]) {
            events.append("reply")
            #expect(GroupCommitterTests.journalHoldsARecord(harness), "answered before its batch was written")
            // Applying a class-B write caches its body marked open: not yet.
            #expect(!harness.store.isOpen(try! .init(GroupCommitterTests.mail)))
            harness.service.timelines.reply(batch, results)
        }

        func announce(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>]) {
            events.append("announce")
            #expect(harness.store.isOpen(try! .init(GroupCommitterTests.mail)))
            harness.service.timelines.announce(batch, results)
        }
    }

    /// A committer's delegate that counts the writes answered and the batches announced,
    /// expects every write to succeed, and passes each batch on to `next` (the service,
    /// when it watches the service's committer).
    final class CountingDelegate: GroupCommitterDelegate {
        private let next: (any GroupCommitterDelegate)?
        private(set) var answered = 0
        private(set) var announced = 0
        init(passingOnTo next: (any GroupCommitterDelegate)? = nil) { self.next = next }

        func reply(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>]) {
            answered += batch.count
            #expect(results.allSatisfy { (try? $0.get()) != nil })
            next?.reply(batch, results)
        }

        func announce(_ batch: [GroupCommitter.Item], _ results: [Result<UInt64, StoreError>]) {
            announced += 1
            next?.announce(batch, results)
        }
    }

    /// The rule of docs/ARCHITECTURE.md ("Writes not yet acknowledged") across the gap
    /// between the reply and the bookkeeping: a reply starts its connection's next call
    /// at once, which must see the write as applied.
    @Test func aCallStartedByTheReplySeesTheWriteApplied() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail, secret: "FIRST"))
        let counting = CountingDelegate(passingOnTo: harness.service.timelines)
        harness.service.timelines.committer.delegate = counting
        let write = harness.call(
            "io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail, secret: "SECOND"), connection: 7, run: false)
        var read: ServiceHarness.Call?
        var announcedBeforeRead = 0
        write.onFinalReply = {
            read = harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.mail], connection: 7, run: false)
            announcedBeforeRead = counting.announced
        }
        // On the loop or on the worker (as quick as the last commit was): the same.
        harness.scheduler.run()
        #expect(write.isAnswered && write.error == nil)
        let entries = try #require(read?.parameters["entries"] as? [[String: Any]])
        #expect("\(entries)".contains("SECOND") && !"\(entries)".contains("FIRST"))
        #expect(read?.parameters["generation"] as? Int == 2)
        // The read applied and announced the batch first, and it was not applied twice.
        #expect(announcedBeforeRead == 1 && counting.announced == 1)
    }

    /// A call waits for no other peer's commit, and a call refused by its role check for
    /// none at all: a stranger's `GetStatus` and its refused `GetTimeline` are answered
    /// while a provider's writes still wait to be committed, which then go through as
    /// usual (issue 40: every call used to commit them first, on the loop).
    @Test func otherPeersCallsWaitForNoCommitAndARefusedCallCommitsNothing() throws {
        let harness = try ServiceHarness()
        let writes = [Self.weather, Self.clock].map {
            harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters($0), run: false)
        }
        let stranger = PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [5001])
        let status = harness.call("io.widgetd.Device.GetStatus", peer: stranger, run: false)
        #expect(status.isAnswered && status.error == nil)
        let refused = harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.weather], peer: stranger, run: false)
        #expect(refused.error == "io.widgetd.PermissionDenied")
        #expect(writes.allSatisfy { !$0.isAnswered }, "the provider's writes were committed for someone else's call")
        #expect(!Self.journalHoldsARecord(harness))
        harness.scheduler.run()
        #expect(writes.allSatisfy { $0.isAnswered && $0.error == nil })
        // Its own next call sees them (its calls are answered in order).
        #expect(harness.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.weather])["generation"] as? Int == 1)
    }

    /// An `AppendEntries` builds on its widget's accepted write: it is parked until that
    /// write is durable, which no call commits on the loop (issue 40), then goes into
    /// the group commit itself.
    @Test func anAppendBuildsOnItsWidgetsAcceptedWriteWithoutCommittingOnTheLoop() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "FIRST"))
        let put = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "SECOND"), run: false)
        let other = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather), run: false)
        let entry = ServiceHarness.entry(at: harness.scheduler.now.addingTimeInterval(7200), secret: "APPENDED")
        let append = harness.call("io.widgetd.Provider.AppendEntries", ["widget": Self.clock, "entries": [entry]], run: false)
        #expect(!put.isAnswered && !append.isAnswered && !other.isAnswered)
        harness.scheduler.run()
        #expect(put.isAnswered && put.error == nil && other.isAnswered && other.error == nil)
        #expect(append.isAnswered && append.error == nil, "\(append.replies)")
        let read = "\(harness.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]))"
        #expect(read.contains("SECOND") && read.contains("APPENDED") && !read.contains("FIRST"))
    }

    /// A delete's catalog save runs on a worker, never on the loop: the call is answered
    /// once it is durable and applied, and other calls are served meanwhile.
    @Test func aDeleteSavesOffTheLoopAndIsAnsweredOnceApplied() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock))
        let delete = harness.call("io.widgetd.Provider.DeleteTimeline", ["widget": Self.clock], run: false)
        #expect(!delete.isAnswered, "the delete's save ran on the loop")
        #expect(harness.scheduler.hasHandedOverWork)
        let stranger = PeerCredentials(pid: 1, uid: 5000, gid: 5000, groups: [5001])
        #expect(harness.call("io.widgetd.Device.GetStatus", peer: stranger, run: false).isAnswered)
        harness.scheduler.run()
        #expect(delete.isAnswered && delete.error == nil, "\(delete.replies)")
        #expect(harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]).error == "io.widgetd.WidgetNotFound")
        // And after a restart.
        try harness.restart()
        #expect(harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]).error == "io.widgetd.WidgetNotFound")
    }

    /// While a batch syncs, the next one is handed to a worker too, so that it waits at
    /// the journal sealed and appends the moment the first sync returns; a third waits
    /// for one of them to finish. Every writer is still answered.
    @Test func aSecondBatchStartsWhileTheFirstCommitsAndAThirdWaits() throws {
        let harness = try ServiceHarness()
        let workers = HeldWorkScheduler(harness.scheduler)
        let committer = GroupCommitter(store: harness.store, scheduler: workers, commitsLoneWritesOnLoop: false)
        let counting = CountingDelegate()
        committer.delegate = counting
        for (widget, running) in [(Self.weather, 1), (Self.clock, 2), (Self.mail, 2)] {
            committer.accept(Self.item(widget))
            harness.scheduler.turn()
            #expect(workers.held == running, "commits running once \(widget) was accepted: \(workers.held)")
        }
        while workers.held > 0 {
            workers.runOne()
            harness.scheduler.run()
        }
        #expect(counting.answered == 3)
    }

    /// A write of an empty class-`none` timeline to `widget`, for a committer of the test's own.
    static func item(_ widget: String) -> GroupCommitter.Item {
        let context = CallContext(
            connection: ConnectionID(rawValue: 1), peer: PeerCredentials(pid: 1, uid: 0, gid: 0), wantsMore: false,
            isOneway: false, logger: .disabled, deliverProtected: { _, _, _ in }, isConnectionOpen: { true })
        let body = try! SecureBytes(copying: UnsafeRawBufferPointer(start: nil, count: 0))
        let write = TimelineStore.TimelineWrite(
            widget: try! WidgetID(widget), protectionClass: .none, family: nil, reloadDue: nil, body: body, placeholder: nil)
        return (context, write)
    }

    /// `ManualScheduler`, except that work meant for a worker waits until ``runOne()``
    /// runs it, oldest first: a commit is running for as long as the test says.
    final class HeldWorkScheduler: Scheduling, @unchecked Sendable {
        let base: ManualScheduler
        private var work: [@Sendable () -> Void] = []
        init(_ base: ManualScheduler) { self.base = base }
        /// How many handed-over pieces of work wait.
        var held: Int { work.count }
        func runOne() { work.removeFirst()() }
        var now: Date { base.now }
        var clocks: ClockReading { base.clocks }
        func scheduleTimer(at deadline: TimerDeadline, _ body: @escaping () -> Void) -> ScheduledTimer {
            base.scheduleTimer(at: deadline, body)
        }
        func onWallClockSet(_ body: @escaping () -> Void) { base.onWallClockSet(body) }
        func cancelTimer(_ timer: ScheduledTimer) { base.cancelTimer(timer) }
        func execute(_ body: @escaping @Sendable () -> Void) { base.execute(body) }
        func runInBackground(on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) { self.work.append(work) }
        var isOnLoopThread: Bool { true }
    }

    /// A clock that moves `step` nanoseconds each time it is read: every commit takes `step`.
    final class SteppingClock: Sendable {
        let step: UInt64
        private let value = Mutex<UInt64>(0)
        init(step: UInt64) { self.step = step }
        func read() -> UInt64 { value.withLock { $0 += step; return $0 } }
    }

    /// A clock read twice per commit (before and after) whose commits take `durations`
    /// in turn.
    final class CommitDurations: Sendable {
        private let state = Mutex<(now: UInt64, reads: Int)>((0, 0))
        private let durations: [UInt64]
        init(_ durations: [UInt64]) { self.durations = durations }
        func read() -> UInt64 {
            state.withLock { state in
                if state.reads % 2 == 1 { state.now += durations[min(state.reads / 2, durations.count - 1)] }
                state.reads += 1
                return state.now
            }
        }
    }

    /// A committer of its own over the harness's store, its replies counted.
    static func committer(_ harness: ServiceHarness, commitTakes step: UInt64) -> (GroupCommitter, () -> Int, () -> GroupCommitter.Item) {
        let clock = SteppingClock(step: step)
        let committer = GroupCommitter(store: harness.store, scheduler: harness.scheduler, nanoseconds: { clock.read() })
        let counting = CountingDelegate()
        committer.delegate = counting
        let item = { () -> GroupCommitter.Item in
            let context = CallContext(
                connection: ConnectionID(rawValue: 1), peer: PeerCredentials(pid: 1, uid: 0, gid: 0), wantsMore: false,
                isOneway: false, logger: .disabled, deliverProtected: { _, _, _ in }, isConnectionOpen: { true })
            let body = try! SecureBytes(copying: UnsafeRawBufferPointer(start: nil, count: 0))
            let write = TimelineStore.TimelineWrite(
                widget: try! WidgetID(Self.clock), protectionClass: .none, family: nil, reloadDue: nil, body: body,
                placeholder: nil)
            return (context, write)
        }
        return (committer, { counting.answered }, item)
    }

    /// A call of a host's connection (2) then of the writer's (1), as the loop serves them.
    static func anotherConnectionCalls(_ committer: GroupCommitter) {
        committer.served(ConnectionID(rawValue: 2))
        committer.served(ConnectionID(rawValue: 1))
    }

    /// Only a lone writer calling: nothing else waits on the loop, so its writes are
    /// committed there however slow the syncs; a call of another connection sends them
    /// to the worker for the next `othersActiveCommitCount` commits.
    @Test func slowCommitsStayOnTheLoopWhileNoOtherConnectionCalls() throws {
        let harness = try ServiceHarness()
        let slow = GroupCommitter.loopCommitLimitNanoseconds
        let (committer, answered, item) = Self.committer(harness, commitTakes: 8 * slow)
        committer.served(ConnectionID(rawValue: 1))
        for expected in 1...3 {
            committer.served(ConnectionID(rawValue: 1))
            committer.accept(item())
            harness.scheduler.turn()
            #expect(answered() == expected && !harness.scheduler.hasHandedOverWork)
        }
        Self.anotherConnectionCalls(committer)
        var onWorker = 0
        for _ in 0..<(GroupCommitter.othersActiveCommitCount + 2) {
            committer.accept(item())
            harness.scheduler.turn()
            if harness.scheduler.hasHandedOverWork {
                onWorker += 1
                harness.scheduler.turn()
            }
        }
        #expect(answered() == 3 + GroupCommitter.othersActiveCommitCount + 2)
        #expect(onWorker == GroupCommitter.othersActiveCommitCount, "on the worker: \(onWorker)")
        #expect(committer.othersActiveCommits == 0)
    }

    @Test func aSlowCommitSendsTheNextLoneWritesToTheWorkerUntilCommitsAreQuickAgain() throws {
        let harness = try ServiceHarness()
        let slow = GroupCommitter.loopCommitLimitNanoseconds
        let (committer, answered, item) = Self.committer(harness, commitTakes: slow)
        // A host calls between the writer's calls: a stalled sync on the loop would hold it.
        Self.anotherConnectionCalls(committer)
        committer.accept(item())
        harness.scheduler.turn()
        // On the loop (nothing measured yet); it took the limit.
        #expect(answered() == 1 && !harness.scheduler.hasHandedOverWork)
        #expect(committer.recentSlowestCommitNanoseconds == slow)
        committer.accept(item())
        harness.scheduler.turn()
        #expect(answered() == 1 && harness.scheduler.hasHandedOverWork, "a slow disk's sync held the loop again")
        harness.scheduler.turn()
        #expect(answered() == 2)

        // A stall of 8× the limit, then quick commits: the worker until the stall has
        // faded, then the loop again.
        let durations = CommitDurations([8 * slow] + Array(repeating: slow / 10, count: 60))
        let sequenced = GroupCommitter(store: harness.store, scheduler: harness.scheduler, nanoseconds: { durations.read() })
        Self.anotherConnectionCalls(sequenced)
        let sequencedCounting = CountingDelegate()
        sequenced.delegate = sequencedCounting
        var onWorker = 0
        for _ in 0..<61 {
            sequenced.accept(item())
            harness.scheduler.turn()
            if harness.scheduler.hasHandedOverWork {
                onWorker += 1
                harness.scheduler.turn()
            }
        }
        #expect(sequencedCounting.answered == 61)
        // ln 8 / ln(16/15) ≈ 32: the stall counts for 33 commits after it.
        #expect(onWorker == 33, "on the worker: \(onWorker)")
        #expect(sequenced.recentSlowestCommitNanoseconds < slow)

        let (quick, quickAnswered, quickItem) = Self.committer(harness, commitTakes: slow / 10)
        for expected in 1...3 {
            quick.accept(quickItem())
            harness.scheduler.turn()
            #expect(quickAnswered() == expected && !harness.scheduler.hasHandedOverWork)
        }
    }
}
