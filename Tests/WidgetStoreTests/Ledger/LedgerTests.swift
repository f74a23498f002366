import Foundation
import Testing
import WidgetModel
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// The authenticated catalog (DESIGN §9): a single timeline file restored from a
/// backup is refused, a deleted widget's file that reappears is ignored, and a catalog
/// removed or altered stops the store from starting.
@Suite struct LedgerRules {
    private func bytes(_ path: String) throws -> [UInt8] { Array(try #require(FileManager.default.contents(atPath: path))) }
    private func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
    private func ledgerPath(_ f: Fixture) -> String { "\(f.state)/\(GenerationLedger.fileName)" }

    private func put(_ store: TimelineStore, _ body: String) throws {
        try store.putTimeline(
            widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure(body), placeholder: Array("ph".utf8))
    }

    /// Issue 16: restoring an older timeline file served generation 1 after generation 2 was acknowledged.
    @Test(arguments: [Fixture.journalCapacity, 0])
    func aTimelineFileOlderThanItsLedgerEntryIsRefusedAsRolledBack(journalCapacity: Int) throws {
        let f = Fixture()
        let open = { try TimelineStore(stateDirectory: f.state, credentialsDirectory: nil, configuration: .test, journalCapacity: journalCapacity, journalFolding: .atOnce, now: t0) }
        let old: [UInt8]
        let path: String
        do {
            let store = try open()
            try put(store, "generation 1")
            try store.foldJournal()
            path = try f.timelineFiles()[0]
            old = try bytes(path)
            try put(store, "generation 2")
            try store.foldJournal()
        }
        try write(old, to: path)
        let store = try open()
        // Hosts get the (authentic, older) placeholder; the body is refused, with its reason.
        #expect(try store.metadata(widgetA)?.placeholder == Array("ph".utf8))
        #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } == .rolledBack)
        // The provider's next write builds above the catalog's generation, and is served.
        #expect(try store.putTimeline(widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("3"), placeholder: nil) == 3)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "3")
    }

    /// Issue 16: restoring an older timeline file brought a deleted widget back.
    @Test func aDeletedWidgetsFileThatReappearsIsIgnored() throws {
        let f = Fixture()
        let old: [UInt8]
        let path: String
        do {
            let store = try f.open()
            try put(store, "deleted")
            try store.foldJournal()
            path = try f.timelineFiles()[0]
            old = try bytes(path)
            try store.deleteTimeline(widgetA)
        }
        try write(old, to: path)
        let store = try f.open()
        #expect(try store.metadata(widgetA) == nil)
        #expect(try store.listTimelines().isEmpty)
        #expect(throws: StoreError.widgetNotFound) { try store.readBody(widgetA, allowOpenClassB: true) }
        // A new timeline of the same widget numbers itself above the deleted one.
        #expect(try store.putTimeline(widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("new"), placeholder: nil) == 2)
        try store.foldJournal()
        #expect(text(try f.open().readBody(widgetA, allowOpenClassB: true)) == "new")
    }

    /// Issue 40 §2: a delete is prepared (on the daemon's loop) without reading its file:
    /// the index gives the generation, and `commitDelete` reads the file off the loop,
    /// inside the catalog's change. (It read it first, and found no widget here.)
    @Test func aDeleteIsPreparedWithoutReadingItsFile() throws {
        let f = Fixture()
        let open = { try TimelineStore(stateDirectory: f.state, credentialsDirectory: nil, configuration: .test, journalCapacity: 0, now: t0) }
        let path: String
        do {
            let store = try open()
            try put(store, "deleted")
            path = "\(f.timelines)/\(try store.timelines.fileName(for: widgetA))"
            let aside = path + ".aside"
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            let prepared = try store.prepareDelete(widgetA)
            try FileManager.default.moveItem(atPath: aside, toPath: path)
            try store.finishDelete(prepared, TimelineStore.commitDelete(prepared))
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try store.metadata(widgetA) == nil)
        }
        #expect(try open().metadata(widgetA) == nil)
    }

    @Test func anAlteredLedgerIsAStartError() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try put(store, "x")
            try store.foldJournal()
        }
        var edited = try bytes(ledgerPath(f))
        edited[9 + 16] ^= 1  // the first entry's generation
        try write(edited, to: ledgerPath(f))
        #expect(throws: StoreError.corrupt(file: ledgerPath(f), reason: .authenticationFailure)) { try f.open() }
    }

    @Test func aMissingLedgerBesideTheKeybagIsAStartError() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try put(store, "x")
            try store.foldJournal()
        }
        try FileManager.default.removeItem(atPath: ledgerPath(f))
        #expect(throws: StoreError.ledgerMissing(path: ledgerPath(f))) { try f.open() }
    }

    @Test func aStoreOfThePreviousVersionGetsItsLedgerFromItsFiles() throws {
        let f = Fixture()
        let old: [UInt8]
        let path: String
        do {
            let store = try f.open()
            try put(store, "generation 1")
            try store.foldJournal()
            path = try f.timelineFiles()[0]
            old = try bytes(path)
            try put(store, "generation 2")
            try store.foldJournal()
            // As the previous version left it: a version-1 keybag and no catalog.
            try write(try version1Keybag(of: store), to: "\(f.state)/\(Keybag.fileName)")
            try FileManager.default.removeItem(atPath: ledgerPath(f))
        }
        #expect(text(try f.open().readBody(widgetA, allowOpenClassB: true)) == "generation 2")
        try write(old, to: path)
        #expect(corruption { _ = try f.open().readBody(widgetA, allowOpenClassB: true) } == .rolledBack)
    }

    @Test func aWipeLeavesAnEmptyLedger() throws {
        let f = Fixture()
        let store = try f.open()
        try put(store, "x")
        try store.foldJournal()
        try store.wipe()
        #expect(try store.putTimeline(widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("y"), placeholder: nil) == 1)
        try store.foldJournal()
        #expect(text(try f.open().readBody(widgetA, allowOpenClassB: true)) == "y")
    }
}
