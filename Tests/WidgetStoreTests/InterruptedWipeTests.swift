import Foundation
import Testing
import WidgetModel
@testable import StoreKeys
@testable import WidgetStore

/// A wipe that stops after the erase (the keybag's removal), by a power cut or a
/// failure, is finished by the next open: nothing of the erased store is served,
/// not even as an error, and nothing of it replays.
@Suite struct InterruptedWipeTests {
    /// With the device key as a credential, the erased store's file names and journal
    /// key survive the wipe, so its leftovers would answer for the same widgets.
    @Test func aWipeStoppedAfterTheKeybagIsGoneIsFinishedAtTheNextOpen() throws {
        let f = Fixture()
        let credentials = "\(f.root)/credentials"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: "\(credentials)/device-key", contents: Data(repeating: 9, count: 32))
        let settings = "\(f.state)/\(SettingsFile.fileName)"
        do {
            let store = try f.open(credentials: credentials)
            try putOnePerClass(store)
            try store.foldJournal()
            // Journaled, not folded: a record the next open would replay.
            _ = try store.putTimeline(
                widgetD, protectionClass: .none, family: nil, reloadDue: nil, body: secure("journaled"), placeholder: nil)
            // unlink refuses a directory (EISDIR): the wipe stops after the keybag's removal.
            try FileManager.default.removeItem(atPath: settings)
            try FileManager.default.createDirectory(atPath: "\(settings)/blocker", withIntermediateDirectories: true)
            #expect(throws: StoreError.self) { try store.wipe() }
            #expect(!FileManager.default.fileExists(atPath: "\(f.state)/\(Keybag.fileName)"))
        }
        try FileManager.default.removeItem(atPath: settings)
        let reopened = try f.open(credentials: credentials)
        #expect(reopened.openReport.finishedInterruptedWipe)
        #expect(reopened.recoveredJournalRecords == 0)
        #expect(try f.timelineFiles().isEmpty)
        for w in [widgetA, widgetB, widgetC, widgetD] {
            #expect(throws: StoreError.widgetNotFound) { _ = try reopened.readBody(w, allowOpenClassB: false) }
        }
        #expect(try reopened.listTimelines().isEmpty)
        // A fresh store, and nothing left over (no set-aside timelines either).
        let left = try FileManager.default.contentsOfDirectory(atPath: f.state).sorted()
        // (The space reserve holds nothing: a wipe leaves it.)
        #expect(left == ["catalog", "journal", "keybag", "reserve", "settings", "timelines"], "\(left)")
    }
}
