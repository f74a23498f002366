import Foundation
import Synchronization
import Testing
import WidgetModel
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// The journal's two regions: appends go on in one while the other waits for its fold;
/// a crash with a region not folded yet loses no acknowledged write, and brings back
/// no older one over a newer, whichever region holds which.
@Suite struct JournalRegionsTests {
    /// The background folds a store schedules, held until the test runs them.
    final class HeldFolds: Sendable {
        private let works = Mutex<[@Sendable () -> Void]>([])
        func hold(_ work: @escaping @Sendable () -> Void) { works.withLock { $0.append(work) } }
        var count: Int { works.withLock { $0.count } }
        func runAll() {
            for work in works.withLock({ let all = $0; $0 = []; return all }) { work() }
        }
    }

    private func open(_ f: Fixture, _ held: HeldFolds) throws -> TimelineStore {
        var configuration = StoreConfiguration.test
        // Nothing cached: every read goes to the journal's regions or the file.
        configuration.maxCachedTimelines = 0
        let store = try f.open(configuration, folding: .inBackground)
        #expect(store.journal != nil)
        store.journal?.scheduleFold = { held.hold($0) }
        return store
    }

    /// How many bytes of records the file's first region holds.
    private func recordBytes(_ bytes: Data) -> Int {
        let bytes = [UInt8](bytes)
        var offset = 0
        while offset + Journal.overhead <= bytes.count, bytes[offset..<offset + 4].elementsEqual(Array("WDJR".utf8)) {
            offset += Journal.overhead + (0..<4).reduce(0) { $0 | Int(bytes[offset + 36 + $1]) << (8 * $1) }
        }
        return offset
    }

    private static let body = String(repeating: "x", count: 700)
    private static let widgets = (0..<80).map { widget("com.example.clock/w#\($0)") }

    /// The texts and generations every widget must have.
    private struct Expected {
        var texts: [WidgetID: (text: String, generation: UInt64)] = [:]

        mutating func put(_ store: TimelineStore, _ w: WidgetID, round: Int) throws {
            let text = "\(round) \(w) \(JournalRegionsTests.body)"
            let generation = try store.putTimeline(
                w, protectionClass: .none, family: nil, reloadDue: nil, body: secure(text), placeholder: nil)
            texts[w] = (text, generation)
        }

        func check(_ store: TimelineStore) throws {
            for (w, expected) in texts {
                #expect(text(try store.readBody(w, allowOpenClassB: false)) == expected.text)
                #expect(try store.metadata(w)?.generation == expected.generation)
            }
        }
    }

    @Test func writesGoOnInTheOtherRegionWhileAFullOneWaitsForItsFold() throws {
        let f = Fixture()
        let held = HeldFolds()
        var expected = Expected()
        let store = try open(f, held)
        for w in Self.widgets { try expected.put(store, w, round: 0) }
        // The first region filled (64 KiB, about 70 records of 0.9 KiB) and waits: no file yet.
        #expect(held.count == 1)
        #expect(try f.timelineFiles().isEmpty)
        // Newer writes of some of its widgets land in the second region and are served.
        for w in Self.widgets.prefix(10) { try expected.put(store, w, round: 1) }
        try expected.check(store)
        // The fold, when it runs, writes the first region's files; the newer ones stay journaled.
        held.runAll()
        #expect(try f.timelineFiles().count > 0)
        try expected.check(store)
        try store.foldJournal()
        #expect(try f.timelineFiles().count == Self.widgets.count)
        try expected.check(try f.open())
    }

    @Test func aCrashBeforeAFullRegionIsFoldedReplaysBothRegions() throws {
        let f = Fixture()
        let held = HeldFolds()
        var expected = Expected()
        do {
            let store = try open(f, held)
            for w in Self.widgets { try expected.put(store, w, round: 0) }
            for w in Self.widgets.prefix(10) { try expected.put(store, w, round: 1) }
            #expect(held.count == 1)
            // Dropped with the fold never run: a crash.
        }
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == Self.widgets.count + 10)
        try expected.check(reopened)
    }

    /// After a second turn the first region is the newer: its records must win over
    /// the second region's, which the open folds after it.
    @Test func theNewerRecordWinsWhicheverRegionHoldsIt() throws {
        let f = Fixture()
        let held = HeldFolds()
        var expected = Expected()
        do {
            let store = try open(f, held)
            for w in Self.widgets { try expected.put(store, w, round: 0) }
            held.runAll()
            // Round 1 fills the second region, which turns the writes back to the first.
            var round1: [WidgetID] = []
            for w in Self.widgets where held.count == 0 {
                try expected.put(store, w, round: 1)
                round1.append(w)
            }
            #expect(held.count == 1)
            // Round 2 of the widgets whose round 1 waits in the second region.
            for w in round1.prefix(20) { try expected.put(store, w, round: 2) }
            try expected.check(store)
        }
        try expected.check(try f.open())
    }

    @Test func aDeleteFoldsTheWaitingRegionFirstAndIsNotUndone() throws {
        let f = Fixture()
        let held = HeldFolds()
        var expected = Expected()
        let gone = Self.widgets[0]
        do {
            let store = try open(f, held)
            for w in Self.widgets { try expected.put(store, w, round: 0) }
            #expect(held.count == 1)
            try store.deleteTimeline(gone)
            expected.texts[gone] = nil
            // The held fold finds its region folded already and writes nothing again.
            held.runAll()
            #expect(try store.metadata(gone) == nil)
        }
        let reopened = try f.open()
        #expect(try reopened.metadata(gone) == nil)
        try expected.check(reopened)
    }

    /// The event loop commits a write itself only if no fold has to wait for it.
    @Test func aWriteFitsWithoutAFoldUnlessBothRegionsAreFull() throws {
        let f = Fixture()
        let held = HeldFolds()
        let store = try open(f, held)
        let journal = try #require(store.journal)
        var expected = Expected()
        var round = 0
        // Fill the first region, turn to the second, and fill that too.
        while held.count == 0 || journal.fitsWithoutFold(fileBytes: [1100]) {
            #expect(journal.fitsWithoutFold(fileBytes: [1100]))
            try expected.put(store, Self.widgets[round % Self.widgets.count], round: round)
            round += 1
            if round > 1000 { break }
        }
        #expect(held.count == 1)
        #expect(!journal.fitsWithoutFold(fileBytes: [1100]))
        // Once the first region is folded the next turn needs no fold.
        held.runAll()
        #expect(journal.fitsWithoutFold(fileBytes: [1100]))
        try expected.check(store)
    }

    @Test func foldsInTheBackgroundLoseNoWrite() throws {
        let f = Fixture()
        var expected = Expected()
        do {
            let store = try f.open(folding: .inBackground)
            for round in 0..<5 {
                for w in Self.widgets { try expected.put(store, w, round: round) }
            }
            try expected.check(store)
            // An orderly stop waits for a fold still running.
            try store.foldJournal()
        }
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == 0)
        try expected.check(reopened)
    }

    /// Older versions wrote one region the size of the file: its records past the
    /// middle are still replayed, and nothing there reads as a second region.
    @Test func aJournalOfOneRegionStillReplaysWhole() throws {
        let f = Fixture()
        var expected = Expected()
        do {
            let store = try f.open(journalCapacity: 128 << 10)
            for w in Self.widgets { try expected.put(store, w, round: 0) }
        }
        let path = "\(f.state)/\(Journal.fileName)"
        // A file of one 96 KiB region, its records (≈ 70 KiB) running past its middle.
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(recordBytes(bytes) > 48 << 10)
        try bytes.prefix(96 << 10).write(to: URL(fileURLWithPath: path))
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == expected.texts.count)
        try expected.check(reopened)
    }
}
