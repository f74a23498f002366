import Foundation
import StoreLedger
import Testing
import VarlinkTransport
import WidgetCrypto

@testable import WidgetDaemon
@testable import WidgetStore

/// The calls that need every stored timeline indexed wait for the background index
/// instead of finishing it on the loop: a small store, restarted and indexed one file
/// per turn of the manual loop, stands in for a million timelines.
@Suite struct ServiceIndexWaitTests {
    static let health = ServiceHarness.widgets[.complete]!
    static let clock = ServiceHarness.widgets[.none]!

    /// Four stored timelines, restarted with the index not yet filled, one file a turn,
    /// and (unless `usageKnown`) a catalog head without a usage table, as the previous
    /// version left it: the provider writes wait for the index.
    private static func restartedWithIndexToFill(_ harness: ServiceHarness, usageKnown: Bool = false) throws {
        harness.putEveryClass()
        harness.service.commitPendingWrites()
        if !usageKnown { try withoutUsageTable(harness) }
        try harness.restart(run: false)
        harness.service.timelines.index.slice = 1
        #expect(harness.store.isUsageKnown == usageKnown)
    }

    /// Rewrites the catalog's head as version 2 (no usage table), under its MAC.
    private static func withoutUsageTable(_ harness: ServiceHarness) throws {
        let path = "\(harness.root)/state/\(GenerationLedger.fileName)"
        let head = try #require(FileManager.default.contents(atPath: path))
        var content = Array(head.prefix(4 + 1 + 8 + 8 + 32 + 8 + 32 + 8 + 8))
        content[4] = 2
        let mac = try KeyedHash.hash(content, key: harness.store.custody.subkeys.ledgerMAC, outputLength: 32)
        try Data(content + mac.withUnsafeBytes { Array($0) }).write(to: URL(fileURLWithPath: path))
    }

    @Test func aCallNeedingEveryTimelineIsAnsweredWhenTheBackgroundIndexCompletesWhileReadsAreAnsweredAtOnce() throws {
        let harness = try ServiceHarness()
        try Self.restartedWithIndexToFill(harness)

        let list = harness.call("io.widgetd.Host.ListWidgets", run: false)
        let reload = harness.call("io.widgetd.Host.ReloadTimelines", run: false)
        let read = harness.call("io.widgetd.Host.GetPresentation", ["widget": Self.clock, "surface": "homeScreen"], run: false)
        let timeline = harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock], run: false)
        // Answered without a turn of the loop: the index was not finished for them.
        #expect(!list.isAnswered && !reload.isAnswered, "answered before the index was complete")
        #expect(read.isAnswered && read.error == nil && read.mode == "content")
        #expect(timeline.isAnswered && timeline.error == nil)
        #expect(!harness.service.timelines.index.isComplete)

        // One file indexed per turn; the calls wait until the last.
        var turns = 0
        while !harness.service.timelines.index.isComplete, turns < 100 {
            #expect(!list.isAnswered && !reload.isAnswered)
            harness.scheduler.turn()
            turns += 1
        }
        #expect(turns >= 4, "four files, one a turn")
        #expect(list.isAnswered && list.error == nil)
        #expect((list.parameters["widgets"] as? [[String: Any]])?.count == 4)
        #expect(reload.isAnswered && reload.error == nil)
    }

    /// A Lock that comes while an append to a class-A timeline waits for the index wins:
    /// the append is judged when the index completes, with the class-A key purged by then
    /// (a grace of 0), so the timeline it would extend cannot be read.
    @Test func aLockWhileAnAppendWaitsForTheIndexIsHonouredWhenTheAppendIsAnswered() throws {
        let harness = try ServiceHarness(classAGrace: 0)
        harness.ok("io.widgetd.Device.SetPasscode", ["new": "1234"])
        try Self.restartedWithIndexToFill(harness)
        let unlock = harness.call("io.widgetd.Device.Unlock", ["passcode": "1234"], run: false)
        harness.scheduler.turn()
        #expect(unlock.isAnswered && unlock.error == nil)
        try #require(!harness.service.timelines.index.isComplete)

        let append = harness.call(
            "io.widgetd.Provider.AppendEntries",
            ["widget": Self.health, "entries": [ServiceHarness.entry(at: ServiceHarness.start.addingTimeInterval(7200))]], run: false)
        let lock = harness.call("io.widgetd.Device.Lock", run: false)
        #expect(lock.isAnswered && lock.error == nil)
        #expect(!append.isAnswered)
        harness.scheduler.run()
        #expect(harness.service.timelines.index.isComplete)
        #expect(append.isAnswered && append.error == "io.widgetd.ProtectedDataUnavailable", "\(append.replies)")
    }

    /// After an orderly stop the store knows each provider's usage from the catalog: a
    /// provider's write is judged at once, before the background index completes, and
    /// one beyond the quota is refused then with the quota's error. (After a crash, as
    /// in the tests above, writes still wait.)
    @Test func afterAnOrderlyStopAProviderWriteIsJudgedBeforeTheBackgroundIndexCompletes() throws {
        let harness = try ServiceHarness { configuration in
            for i in configuration.providers.indices where configuration.providers[i].id == "com.example.clock" {
                configuration.providers[i].maxWidgets = 2
            }
        }
        harness.putEveryClass()
        harness.service.commitPendingWrites()
        try harness.store.foldJournal()
        try harness.restart(run: false)
        harness.service.timelines.index.slice = 1
        #expect(harness.store.isUsageKnown)

        let second = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters("com.example.clock/second"), run: false)
        let third = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters("com.example.clock/third"), run: false)
        let append = harness.call(
            "io.widgetd.Provider.AppendEntries",
            ["widget": Self.clock, "entries": [ServiceHarness.entry(at: ServiceHarness.start.addingTimeInterval(7200))]], run: false)
        // One turn starts their group commit on the worker, the next answers it.
        harness.scheduler.turn()
        harness.scheduler.turn()
        #expect(!harness.service.timelines.index.isComplete, "four files, one a turn")
        #expect(second.isAnswered && second.error == nil, "\(second.replies)")
        #expect(third.isAnswered && third.error == "io.widgetd.TooLarge", "\(third.replies)")
        #expect(append.isAnswered && append.error == nil, "\(append.replies)")
        harness.scheduler.run()
        #expect(harness.service.timelines.index.isComplete)
        #expect(harness.store.usage(of: "com.example.clock").widgets == 2)
    }

    /// After a crash as after an orderly stop: the catalog's head carries each
    /// provider's usage by the files as folded (the crash's journal replayed into them),
    /// so a provider's write is judged at once, before the background index completes.
    @Test func afterACrashAProviderWriteIsJudgedBeforeTheBackgroundIndexCompletes() throws {
        let harness = try ServiceHarness { configuration in
            for i in configuration.providers.indices where configuration.providers[i].id == "com.example.clock" {
                configuration.providers[i].maxWidgets = 2
            }
        }
        // Stopped without a fold: its last writes only in the journal.
        try Self.restartedWithIndexToFill(harness, usageKnown: true)
        #expect(harness.store.recoveredJournalRecords > 0)
        let second = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters("com.example.clock/second"), run: false)
        let third = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters("com.example.clock/third"), run: false)
        // Answered while the index is still incomplete (four files, one a turn).
        while !third.isAnswered, !harness.service.timelines.index.isComplete { harness.scheduler.turn() }
        #expect(!harness.service.timelines.index.isComplete, "the writes waited for the index")
        #expect(second.isAnswered && second.error == nil, "\(second.replies)")
        #expect(third.isAnswered && third.error == "io.widgetd.TooLarge", "\(third.replies)")
        harness.scheduler.run()
        #expect(harness.service.timelines.index.isComplete)
        #expect(harness.store.usage(of: "com.example.clock").widgets == 2)
    }

    /// The order `BackgroundIndexDelegate` promises: what each slice found, then the
    /// waiting calls once, when the index is complete, oldest first.
    @Test func theIndexHandsOverEachSliceThenTheWaitingCallsOnce() throws {
        let harness = try ServiceHarness()
        try Self.restartedWithIndexToFill(harness)
        let recording = RecordingIndexDelegate(passingOnTo: harness.service.timelines)
        harness.service.timelines.index.delegate = recording
        let first = harness.call("io.widgetd.Host.ListWidgets", connection: 77, run: false)
        let second = harness.call("io.widgetd.Host.ReloadTimelines", connection: 78, run: false)
        harness.scheduler.run()
        #expect(first.isAnswered && first.error == nil && second.isAnswered && second.error == nil)
        #expect(recording.events.last == "completed 77 78", "\(recording.events)")
        let slices = recording.events.dropLast()
        #expect(slices.allSatisfy { $0 == "indexed 1" || $0 == "indexed 0" }, "\(recording.events)")
        #expect(slices.filter { $0 == "indexed 1" }.count == 4, "four files, one a slice: \(recording.events)")
    }

    /// Notes what the index hands over (how many timelines a slice found; which
    /// connections' calls it answers or refuses), then passes it on to `next`.
    final class RecordingIndexDelegate: BackgroundIndexDelegate {
        private let next: any BackgroundIndexDelegate
        private(set) var events: [String] = []
        init(passingOnTo next: any BackgroundIndexDelegate) { self.next = next }

        func indexed(_ found: [TimelineMetadata]) {
            events.append("indexed \(found.count)")
            next.indexed(found)
        }

        func indexCompleted(answering waiters: [IndexWaiters.Waiter]) {
            events.append((["completed"] + waiters.map { "\($0.context.connection.rawValue)" }).joined(separator: " "))
            next.indexCompleted(answering: waiters)
        }

        func indexFailed(refusing waiter: IndexWaiters.Waiter, _ error: StoreError) {
            events.append("refused \(waiter.context.connection.rawValue)")
            next.indexFailed(refusing: waiter, error)
        }
    }

    /// A Wipe while a `ListWidgets` waits: it lists the wiped store, which holds nothing.
    @Test func aWipeWhileAListWaitsForTheIndexIsAnsweredWithTheWipedStore() throws {
        let harness = try ServiceHarness()
        try Self.restartedWithIndexToFill(harness)
        let list = harness.call("io.widgetd.Host.ListWidgets", run: false)
        let wipe = harness.call("io.widgetd.Device.Wipe", ["confirm": "WIPE"], run: false)
        #expect(wipe.isAnswered && wipe.error == nil)
        #expect(!list.isAnswered)
        harness.scheduler.run()
        #expect(list.isAnswered && list.error == nil)
        #expect((list.parameters["widgets"] as? [[String: Any]])?.isEmpty == true)
    }

    @Test func aWaitingCallOfAConnectionThatClosesIsDropped() throws {
        let harness = try ServiceHarness()
        try Self.restartedWithIndexToFill(harness)
        let list = harness.call("io.widgetd.Host.ListWidgets", connection: 77, run: false)
        let other = harness.call("io.widgetd.Host.ListWidgets", connection: 78, run: false)
        #expect(harness.service.timelines.index.waiters.count == 2)
        list.connectionOpen = false
        harness.service.connectionClosed(ConnectionID(rawValue: 77))
        #expect(harness.service.timelines.index.waiters.count == 1)
        harness.scheduler.run()
        #expect(!list.isAnswered)
        #expect(other.isAnswered && other.error == nil)
    }

    @Test func oneCallMoreThanTheWaitingLimitIsToldToTryAgainLater() throws {
        let harness = try ServiceHarness()
        try Self.restartedWithIndexToFill(harness)
        let waiting = (0..<IndexWaiters.limit).map { _ in harness.call("io.widgetd.Host.ReloadTimelines", run: false) }
        let refused = harness.call("io.widgetd.Host.ListWidgets", run: false)
        #expect(refused.isAnswered && refused.error == "io.widgetd.TryAgainLater")
        #expect(refused.parameters["retryAfter"] as? Double == IndexWaiters.retryAfter)
        #expect(!waiting.contains { $0.isAnswered })
        harness.scheduler.run()
        #expect(waiting.allSatisfy { $0.isAnswered && $0.error == nil })
        // Once the index is complete nothing waits: answered at once, whatever the count.
        #expect(harness.call("io.widgetd.Host.ListWidgets", run: false).isAnswered)
    }

    /// Writes wait in order behind the index and are then committed; reads go on meanwhile.
    @Test func aWriteDuringIndexingIsCommittedWhenTheIndexCompletes() throws {
        let harness = try ServiceHarness()
        try Self.restartedWithIndexToFill(harness)
        let write = harness.call("io.widgetd.Provider.PutTimeline", harness.putParameters(Self.clock, secret: "NEW"), run: false)
        let append = harness.call(
            "io.widgetd.Provider.AppendEntries",
            ["widget": Self.clock, "entries": [ServiceHarness.entry(at: ServiceHarness.start.addingTimeInterval(7200))]], run: false)
        let read = harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock], run: false)
        #expect(!write.isAnswered && !append.isAnswered)
        #expect(read.isAnswered && (read.parameters["generation"] as? Int) == 1)
        harness.scheduler.run()
        #expect(write.isAnswered && write.error == nil && (write.parameters["generation"] as? Int) == 2)
        #expect(append.isAnswered && append.error == nil && (append.parameters["generation"] as? Int) == 3)
        let entries = harness.call("io.widgetd.Provider.GetTimeline", ["widget": Self.clock]).parameters["entries"] as? [Any]
        #expect(entries?.count == 3, "\(write.replies) \(append.replies)")
    }

    /// `WatchReloads` does not wait for the index: the reloads that fell due are announced
    /// as the slices find them, every one of them once.
    @Test func watchReloadsDuringIndexingHearsEveryDueReloadAsTheSlicesFindThem() throws {
        let harness = try ServiceHarness()
        harness.putEveryClass()
        // Every timeline's reload (at its last entry, an hour ahead) falls due, unheard.
        harness.scheduler.advance(by: 7200)
        try harness.restart(run: false)
        harness.service.timelines.index.slice = 1
        let watch = harness.call("io.widgetd.Provider.WatchReloads", more: true, run: false)
        #expect(watch.replies.isEmpty, "announced before the slices indexed the files")
        harness.scheduler.run()
        let widgets = watch.replies.compactMap { ($0["parameters"] as? [String: Any])?["widget"] as? String }
        #expect(widgets.sorted() == ServiceHarness.widgets.values.sorted())
        #expect(!watch.isAnswered)
    }
}
