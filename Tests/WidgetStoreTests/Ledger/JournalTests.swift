import Foundation
import Testing
import WidgetModel
@testable import StoreLedger
@testable import WidgetStore

/// The write-ahead journal: a write is durable once journaled, a crash (a store opened
/// again while the first one is simply dropped, never folded) loses no acknowledged
/// write and brings back nothing deleted, wiped, torn or foreign.
@Suite struct JournalTests {
    private func put(_ store: TimelineStore, _ w: WidgetID, _ body: String, _ c: ProtectionClass = .none) throws -> UInt64 {
        try store.putTimeline(w, protectionClass: c, family: nil, reloadDue: nil, body: secure(body), placeholder: nil)
    }

    private func journalBytes(_ f: Fixture) -> [UInt8] {
        Array(FileManager.default.contents(atPath: "\(f.state)/\(Journal.fileName)")!)
    }

    /// The offset of each record in a journal file, from their length fields.
    private func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = 0
        while offset + Journal.overhead <= bytes.count, bytes[offset..<offset + 4].elementsEqual(Array("WDJR".utf8)) {
            offsets.append(offset)
            let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + 36 + $1]) << (8 * $1) }
            offset += Journal.overhead + length
        }
        return offsets
    }

    @Test func journaledWritesReachNoFileUntilAFoldAndSurviveACrash() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            #expect(try put(store, widgetA, "a1", .complete) == 1)
            #expect(try put(store, widgetB, "b1") == 1)
            #expect(try put(store, widgetA, "a2", .complete) == 2)
            // Durable, yet in no file: the journal alone holds them.
            #expect(try f.timelineFiles().isEmpty)
            #expect(recordOffsets(journalBytes(f)).count == 3)
            #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "a2")
            // Dropped without a fold: a crash.
        }
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == 3)
        #expect(try f.timelineFiles().count == 2)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == "a2")
        #expect(try reopened.metadata(widgetA)?.generation == 2)
        #expect(text(try reopened.readBody(widgetB, allowOpenClassB: false)) == "b1")
        // The open folded it: the next open finds nothing to replay.
        #expect(recordOffsets(journalBytes(f)).isEmpty)
        #expect(try f.open().recoveredJournalRecords == 0)
    }

    @Test func aDamagedRecordEndsTheReplayAndEverythingBeforeItIsKept() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            _ = try put(store, widgetA, "a1")
            _ = try put(store, widgetB, "b1")
            _ = try put(store, widgetC, "c1")
        }
        // A write torn by the crash: the second record's last byte never made it.
        var bytes = journalBytes(f)
        let offsets = recordOffsets(bytes)
        #expect(offsets.count == 3)
        bytes[offsets[2] - 1] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: "\(f.state)/\(Journal.fileName)"))
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == 1)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == "a1")
        // Never acknowledged, since the write after a torn one waits for its sync: gone, cleanly.
        #expect(try reopened.metadata(widgetB) == nil)
        #expect(try reopened.metadata(widgetC) == nil)
        #expect(try reopened.listTimelines().map(\.widget) == [widgetA])
    }

    @Test func recordsOfAnEarlierEpochNeverReplay() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            _ = try put(store, widgetA, "a1")
            _ = try put(store, widgetB, "b1")
            let before = recordOffsets(journalBytes(f))
            try store.foldJournal()
            _ = try put(store, widgetA, "a2")
            // The new record is as long as the old first one: the old second record (of
            // sequence 1, as the next would be) follows it intact, in the old epoch.
            let after = journalBytes(f)
            #expect(recordOffsets(after).count == 2)
            #expect(after[before[1]..<before[1] + 4].elementsEqual(Array("WDJR".utf8)))
        }
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == 1)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == "a2")
        #expect(try reopened.metadata(widgetA)?.generation == 2)
        #expect(text(try reopened.readBody(widgetB, allowOpenClassB: false)) == "b1")
    }

    @Test func aJournalOfAnotherDeviceKeyIsIgnored() throws {
        let other = Fixture()
        do { _ = try put(try other.open(), widgetA, "foreign") }
        let f = Fixture()
        do { _ = try put(try f.open(), widgetB, "b1") }
        try FileManager.default.removeItem(atPath: "\(f.state)/\(Journal.fileName)")
        try FileManager.default.copyItem(atPath: "\(other.state)/\(Journal.fileName)", toPath: "\(f.state)/\(Journal.fileName)")
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == 0)
        #expect(try reopened.metadata(widgetA) == nil)
        #expect(try f.timelineFiles().isEmpty)
    }

    @Test func aFullJournalFoldsAndLosesNoWrite() throws {
        let f = Fixture()
        let widgets = (0..<150).map { widget("com.example.clock/w#\($0)") }
        let body = String(repeating: "x", count: 700)
        do {
            let store = try f.open()
            // 300 writes of ~1 KiB sealed through a 64 KiB journal: several folds.
            for round in 0..<2 {
                for w in widgets { _ = try put(store, w, "\(round) \(w) \(body)") }
            }
            #expect(try f.timelineFiles().count == widgets.count)
            for w in widgets { #expect(text(try store.readBody(w, allowOpenClassB: false)) == "1 \(w) \(body)") }
        }
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords > 0)
        for w in widgets {
            #expect(text(try reopened.readBody(w, allowOpenClassB: false)) == "1 \(w) \(body)")
            #expect(try reopened.metadata(w)?.generation == 2)
        }
    }

    @Test func aWriteLargerThanTheJournalGoesStraightToItsFile() throws {
        let f = Fixture()
        let large = String(repeating: "y", count: Fixture.journalCapacity * 2)
        do {
            let store = try f.open()
            _ = try put(store, widgetB, "small")
            _ = try put(store, widgetA, large)
            // Written into its file at once; the journal was folded first.
            #expect(try f.timelineFiles().count == 2)
            #expect(recordOffsets(journalBytes(f)).isEmpty)
            _ = try put(store, widgetB, "small again")
        }
        let reopened = try f.open()
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == large)
        #expect(text(try reopened.readBody(widgetB, allowOpenClassB: false)) == "small again")
    }

    @Test func aDeleteIsNotUndoneByTheJournal() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            _ = try put(store, widgetA, "a1")
            _ = try put(store, widgetB, "b1")
            try store.deleteTimeline(widgetA)
            #expect(try store.metadata(widgetA) == nil)
        }
        let reopened = try f.open()
        #expect(try reopened.metadata(widgetA) == nil)
        #expect(text(try reopened.readBody(widgetB, allowOpenClassB: false)) == "b1")
    }

    /// With a credential device key the journal's MAC key survives the wipe: only the
    /// wipe's discarding of the journal keeps its records from coming back.
    @Test func aWipeIsNotUndoneByTheJournal() throws {
        let f = Fixture()
        let credentials = "\(f.root)/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: "\(credentials)/device-key", contents: Data(repeating: 7, count: 32))
        do {
            let store = try f.open(credentials: credentials)
            _ = try put(store, widgetA, "before the wipe")
            try store.wipe()
            #expect(try f.timelineFiles().isEmpty)
        }
        let reopened = try f.open(credentials: credentials)
        #expect(reopened.recoveredJournalRecords == 0)
        #expect(try reopened.metadata(widgetA) == nil)
        #expect(try reopened.listTimelines().isEmpty)
    }

    /// A wipe that stops before it is committed to (a power cut; here the rename that
    /// commits it failing) leaves the store as it was, journaled writes included:
    /// nothing may be destroyed before the wipe is sure to be finished.
    @Test func aWipeStoppedBeforeItIsCommittedKeepsJournaledWrites() throws {
        let f = Fixture()
        let aside = "\(f.state)/timelines.wiped"
        do {
            let store = try f.open()
            _ = try put(store, widgetA, "journaled")
            // rename refuses to replace a directory that is not empty (ENOTEMPTY): the
            // wipe stops at its commit point.
            try FileManager.default.createDirectory(atPath: "\(aside)/blocker", withIntermediateDirectories: true)
            #expect(throws: StoreError.self) { try store.wipe() }
        }
        try FileManager.default.removeItem(atPath: aside)
        let reopened = try f.open()
        #expect(reopened.recoveredJournalRecords == 1)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: false)) == "journaled")
        #expect(!reopened.openReport.finishedInterruptedWipe)
    }

    @Test func journaledFilesAreSealedAsTheirFilesWouldBe() throws {
        let f = Fixture()
        let store = try f.open()
        _ = try put(store, widgetA, "SECRET-IN-THE-JOURNAL", .complete)
        let bytes = journalBytes(f)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("SECRET-IN-THE-JOURNAL"))
        // What a fold writes is the journaled record's file, byte for byte.
        let offset = try #require(recordOffsets(bytes).first)
        let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + 36 + $1]) << (8 * $1) }
        let journaled = Array(bytes[(offset + 40)..<(offset + 40 + length)])
        try store.foldJournal()
        let file = try #require(try f.timelineFiles().first)
        #expect(Array(FileManager.default.contents(atPath: file)!) == journaled)
    }

    @Test func aStoreWithoutAJournalFoldsTheOneItFinds() throws {
        let f = Fixture()
        do { _ = try put(try f.open(), widgetA, "journaled") }
        let store = try TimelineStore(
            stateDirectory: f.state, credentialsDirectory: nil, configuration: .test, journalCapacity: 0, now: t0)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "journaled")
        #expect(!FileManager.default.fileExists(atPath: "\(f.state)/\(Journal.fileName)"))
        _ = try put(store, widgetB, "direct")
        #expect(try f.timelineFiles().count == 2)
    }

    @Test func aSecondClaimOnAStateDirectoryIsRefused() throws {
        let f = Fixture()
        do {
            let first = try StateDirectoryLock(stateDirectory: f.state)
            #expect(throws: StoreError.stateDirectoryInUse(path: f.state)) { try StateDirectoryLock(stateDirectory: f.state) }
            withExtendedLifetime(first) {}
        }
        // Released with its holder.
        _ = try StateDirectoryLock(stateDirectory: f.state)
    }
}
