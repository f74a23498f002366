import Foundation
import Glibc
import Testing
import WidgetModel
@testable import WidgetStore

/// Issue 13, defect 4: a keybag that is missing while timelines (or journaled writes)
/// remain is a start error that changes nothing; starting over is an explicit act.
@Suite struct MissingKeybag {
    @Test func missingKeybagWithTimelineFilesIsAStartErrorAndTouchesNothing() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            try putOnePerClass(store)
            try store.foldJournal()
        }
        #expect(unlink("\(f.state)/keybag") == 0)
        let before = try f.snapshot()
        #expect(throws: StoreError.self) { try f.open() }
        let after = try f.snapshot()
        #expect(after.keys.sorted() == before.keys.sorted())
        for (name, file) in before { #expect(after[name]?.bytes == file.bytes, "\(name) changed") }
    }

    @Test func missingKeybagWithJournaledWritesIsAStartError() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.putTimeline(
                widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("journaled"), placeholder: nil)
        }
        // The write is in the journal only: no timeline file yet.
        #expect(try f.timelineFiles().isEmpty)
        #expect(unlink("\(f.state)/keybag") == 0)
        #expect(throws: StoreError.self) { try f.open() }
        #expect(!FileManager.default.fileExists(atPath: "\(f.state)/keybag"))
    }

    /// The start error agrees with its count: "1 timeline file remains", "2 … remain".
    @Test(arguments: [("1 timeline file", "remains"), ("2 timeline files", "remain"),
                      ("the journal's writes", "remain"), ("1 timeline file and the journal's writes", "remain")])
    func theMissingKeybagErrorAgreesWithWhatRemains(remaining: String, verb: String) {
        let error = StoreError.keybagMissing(path: "/s/keybag", remaining: remaining)
        #expect(error.description.hasPrefix("the keybag /s/keybag is missing while \(remaining) \(verb), which"))
    }

    @Test func missingKeybagInAnEmptyStateDirectoryStartsFresh() throws {
        let f = Fixture()
        _ = try f.open()
        #expect(unlink("\(f.state)/keybag") == 0)
        // Nothing was lost: no timeline, an empty journal.
        #expect(try f.open().passcodeSet == false)
    }

    @Test func startOverErasesWhatTheLostKeybagMadeUnreadableAndKeepsTheSettings() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.saveSettings([7])
            try putOnePerClass(store)
            try store.foldJournal()
            try store.putTimeline(
                widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("journaled"), placeholder: nil)
        }
        #expect(unlink("\(f.state)/keybag") == 0)
        let store = try TimelineStore(
            stateDirectory: f.state, credentialsDirectory: nil, configuration: .test,
            journalCapacity: Fixture.journalCapacity, journalFolding: .atOnce, startOver: true, now: t0)
        #expect(store.openReport.startedOver == "4 timeline files and the journal's writes")
        #expect(store.isFresh)
        #expect(try store.listTimelines().isEmpty)
        #expect(try store.loadSettings() == [7])
        // The next open is an ordinary one.
        #expect(try f.open().openReport.startedOver == nil)
        #expect(try f.open().isFresh == false)
    }

    @Test func startOverWithTheKeybagThereChangesNothing() throws {
        let f = Fixture()
        do { try putOnePerClass(try f.open()) }
        let store = try TimelineStore(
            stateDirectory: f.state, credentialsDirectory: nil, configuration: .test,
            journalCapacity: Fixture.journalCapacity, journalFolding: .atOnce, startOver: true, now: t0)
        #expect(store.openReport.startedOver == nil)
        #expect(try store.listTimelines().count == classOf.count)
    }

    @Test func missingDeviceKeyBesideAKeybagIsAnErrorAndNoNewKeyIsMade() throws {
        let f = Fixture()
        do { try putOnePerClass(try f.open()) }
        let key = "\(f.state)/device.key"
        #expect(unlink(key) == 0)
        #expect(throws: StoreError.deviceKey(.missing(path: key))) { try f.open() }
        #expect(!FileManager.default.fileExists(atPath: key))
    }

    /// What a crash during `wipe()` leaves, at each point after its first step (the
    /// timelines set aside): the next open finishes the erase instead of refusing a
    /// keybag that is missing, or reopening the store the wipe was asked to destroy.
    @Test(arguments: ["after setting the timelines aside", "after destroying the keys"])
    func aWipeCutShortByACrashIsFinishedAtTheNextOpen(crashed: String) throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            try store.saveSettings([7])
            try putOnePerClass(store)
            try store.foldJournal()
            try store.putTimeline(
                widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("journaled"), placeholder: nil)
        }
        #expect(rename(f.timelines, "\(f.state)/timelines.wiped") == 0)
        if crashed == "after destroying the keys" {
            for name in ["keybag", "device.key", "settings"] { #expect(unlink("\(f.state)/\(name)") == 0) }
        }
        let store = try f.open()
        #expect(store.openReport.finishedInterruptedWipe)
        #expect(store.isFresh)
        #expect(!store.passcodeSet)
        #expect(try store.listTimelines().isEmpty)
        // The old settings went with the wipe; the new store has a new store's defaults.
        let settings = try #require(try store.loadSettings())
        #expect(try JSONDecoder().decode(Settings.self, from: Data(settings)) == Settings())
        #expect(!FileManager.default.fileExists(atPath: "\(f.state)/timelines.wiped"))
        #expect(try f.open().openReport.finishedInterruptedWipe == false)
    }

    @Test func wipeLeavesNoSetAsideDirectoryAndAFreshStore() throws {
        let f = Fixture()
        let store = try f.open()
        try putOnePerClass(store)
        try store.wipe()
        #expect(!FileManager.default.fileExists(atPath: "\(f.state)/timelines.wiped"))
        #expect(try f.timelineFiles().isEmpty)
        #expect(try store.listTimelines().isEmpty)
        try putOnePerClass(store)
        #expect(try f.open().listTimelines().count == classOf.count)
    }
}
