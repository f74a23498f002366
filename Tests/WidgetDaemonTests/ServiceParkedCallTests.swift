import Foundation
import Testing
import WidgetdPOSIX

@testable import WidgetDaemon

/// Issue 40 §2: no call waits on the loop for a commit it must see. An `AppendEntries`,
/// a `DeleteTimeline` behind its widget's accepted writes, an unlock or a passcode change
/// behind everyone's, is parked (its reply deferred) while those commits sync on a worker,
/// and the loop serves everyone else meanwhile; a `Lock` or new settings wait for no
/// commit at all. Each reply still goes out only once what it acknowledges is durable.
///
/// The workers' syncs are held by the test (`ManualScheduler.holding`) until it
/// releases them: nothing depends on how long a sync takes.
@Suite struct ServiceParkedCallTests {
    static let weather = ServiceHarness.widgets[.completeUntilFirstUserAuthentication]!
    static let mail = ServiceHarness.widgets[.completeUnlessOpen]!
    static let clock = ServiceHarness.widgets[.none]!
    /// A peer of another connection: a host (root is every role).
    static let root = PeerCredentials(pid: 1, uid: 0, gid: 0)

    /// From now on, the harness's commits and deletes on a worker wait at their sync
    /// until released. (A lone write may still commit on the loop, as quick as the
    /// last commit was: the tests hold only batches of two, which never do.)
    static func holdSyncs(_ harness: ServiceHarness) {
        harness.scheduler.holding = GroupCommitter.workerQueues
    }

    /// Another client's read, answered in the call's own turn.
    static func anotherClientIsServed(_ harness: ServiceHarness, sourceLocation: SourceLocation = #_sourceLocation) {
        let read = harness.call(
            "io.widgetd.Host.GetPresentation", ["widget": Self.mail, "surface": "homeScreen"], run: false)
        #expect(read.isAnswered && read.error == nil, "\(read.replies)", sourceLocation: sourceLocation)
        let status = harness.call("io.widgetd.Device.GetStatus", peer: PeerCredentials(pid: 2, uid: 5000, gid: 5000), run: false)
        #expect(status.isAnswered && status.error == nil, sourceLocation: sourceLocation)
    }

    /// Two writes accepted but not committed yet (they will be one batch, on a worker).
    static func twoAcceptedWrites(_ harness: ServiceHarness, secret: String = "SECOND") -> [ServiceHarness.Call] {
        [
            harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: secret), run: false),
            harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.weather, secret: secret), run: false),
        ]
    }

    /// Releases the held syncs and runs the loop until nothing more is held.
    static func releaseSyncs(_ harness: ServiceHarness) {
        harness.scheduler.run()
        while !harness.scheduler.held.isEmpty {
            harness.scheduler.releaseHeldWork()
            harness.scheduler.run()
        }
    }

    @Test func anAppendIsParkedWhileItsWidgetsWriteSyncsAndOthersAreServed() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail))
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "FIRST"))
        Self.holdSyncs(harness)
        let writes = Self.twoAcceptedWrites(harness)
        let entry = ServiceHarness.entry(at: harness.scheduler.now.addingTimeInterval(7200), secret: "APPENDED")
        let append = harness.call("io.widgetd.Provider.AppendEntries", ["widget": Self.clock, "entries": [entry]], run: false)
        // Issue 40: it committed its widget's write on the loop, and then its own.
        #expect(!append.isAnswered && writes.allSatisfy { !$0.isAnswered }, "a write was committed on the loop")
        Self.anotherClientIsServed(harness)
        harness.scheduler.turn()
        // The writes' batch syncs on a worker: the append is still parked, the loop free.
        #expect(harness.scheduler.held.count == 1)
        #expect(!append.isAnswered && writes.allSatisfy { !$0.isAnswered })
        Self.anotherClientIsServed(harness)
        Self.releaseSyncs(harness)
        #expect(writes.allSatisfy { $0.isAnswered && $0.error == nil })
        #expect(append.isAnswered && append.error == nil, "\(append.replies)")
        #expect(append.parameters["generation"] as? Int == 3)
        // It built on the write before it, and is durable.
        try harness.restart()
        let read = "\(harness.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]))"
        #expect(read.contains("SECOND") && read.contains("APPENDED") && !read.contains("FIRST"))
    }

    /// A write of the widget accepted while an append of it is parked keeps its place:
    /// after the append, which does not build on it.
    @Test func aWriteAcceptedBehindAParkedAppendStaysBehindIt() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "FIRST"))
        Self.holdSyncs(harness)
        _ = Self.twoAcceptedWrites(harness)
        let entry = ServiceHarness.entry(at: harness.scheduler.now.addingTimeInterval(7200), secret: "APPENDED")
        let append = harness.call("io.widgetd.Provider.AppendEntries", ["widget": Self.clock, "entries": [entry]], run: false)
        let later = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "THIRD"), run: false)
        Self.releaseSyncs(harness)
        #expect(append.parameters["generation"] as? Int == 3, "\(append.replies)")
        #expect(later.parameters["generation"] as? Int == 4, "\(later.replies)")
        let read = "\(harness.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]))"
        #expect(read.contains("THIRD") && !read.contains("APPENDED"))
    }

    @Test func aDeleteBehindItsWidgetsWriteIsParkedNotWaitedForOnTheLoop() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail))
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "FIRST"))
        Self.holdSyncs(harness)
        let writes = Self.twoAcceptedWrites(harness)
        var order: [String] = []
        writes[0].onFinalReply = { order.append("write") }
        let delete = harness.call("io.widgetd.Provider.DeleteTimeline", ["widget": Self.clock], run: false)
        delete.onFinalReply = { order.append("delete") }
        #expect(!delete.isAnswered && writes.allSatisfy { !$0.isAnswered }, "a write was committed on the loop")
        Self.anotherClientIsServed(harness)
        harness.scheduler.turn()
        #expect(harness.scheduler.held.count == 1 && !delete.isAnswered)
        Self.anotherClientIsServed(harness)
        // The writes' sync returns; the delete's own save is then held in turn.
        harness.scheduler.releaseHeldWork()
        harness.scheduler.run()
        #expect(writes.allSatisfy { $0.isAnswered && $0.error == nil })
        #expect(harness.scheduler.held.count == 1 && !delete.isAnswered, "the delete's save ran on the loop")
        Self.anotherClientIsServed(harness)
        Self.releaseSyncs(harness)
        #expect(delete.isAnswered && delete.error == nil, "\(delete.replies)")
        #expect(order == ["write", "delete"])
        try harness.restart()
        #expect(harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]).error == "io.widgetd.WidgetNotFound")
        #expect(harness.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.weather])["generation"] as? Int == 1)
    }

    /// A lock and new settings are answered at once: the accepted writes are neither
    /// committed on the loop nor waited for, and commit under the new state afterwards.
    @Test(arguments: ["Lock", "SetSettings"]) func aDeviceChangeWaitsForNoAcceptedWrite(method: String) throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail))
        Self.holdSyncs(harness)
        let writes = Self.twoAcceptedWrites(harness)
        let parameters: [String: Any]? = method == "Lock" ? nil : ["lockScreenWidgetsAccess": false]
        let change = harness.call("io.widgetd.Device.\(method)", parameters, run: false)
        if method == "SetSettings" {
            // Its own file is written off the loop (`ServiceDeviceWriteTests`): answered
            // in the next turn, when that write returns.
            #expect(!change.isAnswered)
            harness.scheduler.turn()
        }
        // Issue 40: it committed every accepted write on the loop (and waited for the running ones).
        #expect(change.isAnswered && change.error == nil, "\(change.replies)")
        #expect(writes.allSatisfy { !$0.isAnswered }, "a write was committed on the loop")
        Self.anotherClientIsServed(harness)
        // They commit on a worker, after the change.
        harness.scheduler.turn()
        #expect(harness.scheduler.held.count == 1 && writes.allSatisfy { !$0.isAnswered })
        if method == "Lock" {
            // Locked while the writes still sync, and a second lock waits for them no more.
            #expect(harness.state() == "locked")
            #expect(harness.call("io.widgetd.Device.Lock", run: false).isAnswered)
        }
        Self.anotherClientIsServed(harness)
        Self.releaseSyncs(harness)
        #expect(writes.allSatisfy { $0.isAnswered && $0.error == nil })
        try harness.restart()
        #expect(harness.ok("io.widgetd.Provider.GetTimeline", ["widget": Self.clock])["generation"] as? Int == 1)
    }

    /// An unlock (which may wipe after too many failed attempts) comes between the writes
    /// in the order they came: parked until those accepted before it are durable, while
    /// the loop serves everyone, and the writes accepted after it wait for it.
    @Test func anUnlockIsParkedUntilTheWritesBeforeItAreDurable() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        harness.ok("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail))
        Self.holdSyncs(harness)
        let writes = Self.twoAcceptedWrites(harness)
        let unlock = harness.call("io.widgetd.Device.Unlock", ["passcode": "1234"], run: false)
        // The derivation's verdict, then the writes' commit timer.
        harness.scheduler.turn()
        // Issue 40: it committed the accepted writes on the loop, then unlocked.
        #expect(!unlock.isAnswered && writes.allSatisfy { !$0.isAnswered }, "a write was committed on the loop")
        #expect(harness.scheduler.held.count == 1)
        let after = harness.call(
            "io.widgetd.Provider.PutTimeline", harness.putParameters(Self.mail, secret: "AFTER"), run: false)
        Self.anotherClientIsServed(harness)
        #expect(harness.state() == "locked")
        var order: [String] = []
        writes[0].onFinalReply = { order.append("write") }
        unlock.onFinalReply = { order.append("unlock") }
        after.onFinalReply = { order.append("after") }
        Self.releaseSyncs(harness)
        #expect(unlock.isAnswered && unlock.error == nil, "\(unlock.replies)")
        #expect(order == ["write", "unlock", "after"])
        #expect(harness.state() == "unlocked")
    }

    /// A lock while an unlock is parked behind the writes still wins: the unlock fails
    /// closed when its turn comes.
    @Test func aLockWhileAnUnlockIsParkedWins() throws {
        let harness = try ServiceHarness()
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        harness.ok("io.widgetd.Device.Lock")
        Self.holdSyncs(harness)
        let writes = Self.twoAcceptedWrites(harness)
        let unlock = harness.call("io.widgetd.Device.Unlock", ["passcode": "1234"], run: false)
        harness.scheduler.turn()
        #expect(!unlock.isAnswered)
        let lock = harness.call("io.widgetd.Device.Lock", run: false)
        #expect(lock.isAnswered && lock.error == nil)
        Self.releaseSyncs(harness)
        #expect(writes.allSatisfy { $0.isAnswered && $0.error == nil })
        #expect(unlock.error == "io.widgetd.UnlockInterrupted", "\(unlock.replies)")
        #expect(harness.state() == "locked")
    }
}
