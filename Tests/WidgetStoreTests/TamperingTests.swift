import Foundation
import Testing
import WidgetModel
@testable import WidgetStore

/// Every altered file gives a typed error and never wrong data.
@Suite struct TamperingRules {
    /// An unlocked store with one class-A timeline; returns the store and its file.
    private func storeWithOneTimeline(_ f: Fixture, _ c: ProtectionClass = .complete) throws -> (TimelineStore, String, [UInt8]) {
        let store = try f.open()
        try store.putTimeline(
            widgetA, protectionClass: c, family: "systemSmall", reloadDue: t0, body: secure("secret balance 1,234.56"),
            placeholder: Array("balance".utf8))
        let path = try f.timelineFiles()[0]
        return (store, path, Array(FileManager.default.contents(atPath: path)!))
    }

    private func write(_ bytes: [UInt8], to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    }

    @Test func everyFlippedByteGivesATypedCorruptionError() throws {
        let f = Fixture()
        let (store, path, original) = try storeWithOneTimeline(f)
        var reasons: Set<String> = []
        for index in original.indices {
            var bad = original
            bad[index] ^= 0x20
            write(bad, to: path)
            store.closeTimeline(widgetA)
            if let reason = corruption({ _ = try store.readBody(widgetA, allowOpenClassB: false) }) {
                reasons.insert("\(reason)")
            }
        }
        // The ciphertext, tags and sealed keys all fail authentication, not just the framing.
        #expect(reasons.contains("\(CorruptionReason.authenticationFailure)"))
        write(original, to: path)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: false)) == "secret balance 1,234.56")
    }

    @Test func everyTruncationGivesATypedCorruptionError() throws {
        let f = Fixture()
        let (store, path, original) = try storeWithOneTimeline(f)
        for length in 0..<original.count {
            write(Array(original.prefix(length)), to: path)
            store.closeTimeline(widgetA)
            _ = corruption { _ = try store.readBody(widgetA, allowOpenClassB: false) }
            _ = corruption { _ = try f.open().metadata(widgetA) }
        }
        write(original + [0], to: path)
        #expect(corruption { _ = try f.open().metadata(widgetA) } == .malformed)
    }

    @Test func fileCopiedOverAnotherWidgetsIsRejected() throws {
        let f = Fixture()
        let (store, pathA, originalA) = try storeWithOneTimeline(f)
        try store.putTimeline(widgetB, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("mail"), placeholder: nil)
        let pathB = try f.timelineFiles().first { $0 != pathA }!
        write(originalA, to: pathB)
        store.closeTimeline(widgetB)
        #expect(corruption { _ = try store.readBody(widgetB, allowOpenClassB: true) } == .wrongWidget)
        #expect(corruption { _ = try f.open().metadata(widgetB) } == .wrongWidget)
        // Listing does not present A's data under B's name (nor A twice).
        #expect(try f.open().listTimelines().map(\.widget) == [widgetA])
    }

    @Test func widgetIDEditedInTheHeaderFailsAuthentication() throws {
        let f = Fixture()
        let other = widget("com.example.bank/balancf")  // same length as widgetA's id
        let (store, pathA, originalA) = try storeWithOneTimeline(f)
        try store.putTimeline(other, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("x"), placeholder: nil)
        let otherPath = try f.timelineFiles().first { $0 != pathA }!
        var forged = originalA
        let id = Array(widgetA.description.utf8)
        let start = 15
        #expect(Array(forged[start..<start + id.count]) == id)
        forged.replaceSubrange(start..<start + id.count, with: Array(other.description.utf8))
        write(forged, to: otherPath)
        store.closeTimeline(other)
        #expect(corruption { _ = try store.readBody(other, allowOpenClassB: true) } == .authenticationFailure)
    }

    @Test(arguments: ProtectionClass.allCases)
    func headerEditedToAnotherClassFailsAuthentication(_ original: ProtectionClass) throws {
        let f = Fixture()
        let (store, path, bytes) = try storeWithOneTimeline(f, original)
        #expect(bytes[5] == original.code)
        for target in ProtectionClass.allCases where target != original {
            var edited = bytes
            edited[5] = target.code
            write(edited, to: path)
            store.closeTimeline(widgetA)
            #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } == .authenticationFailure)
            #expect(corruption { _ = try f.open().metadata(widgetA) } == .authenticationFailure)
        }
    }

    @Test func tamperedKeybagIsATypedErrorNotAReset() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: t0)
            try? store.unlock(passcode: secure("0000"), now: t0)
        }
        let path = "\(f.state)/keybag"
        let original = Array(FileManager.default.contents(atPath: path)!)
        for index in stride(from: 0, to: original.count, by: 7) {
            var bad = original
            bad[index] ^= 1
            write(bad, to: path)
            #expect(corruption { _ = try f.open() } != nil)
        }
        write(Array(original.prefix(original.count - 1)), to: path)
        #expect(corruption { _ = try f.open() } != nil)
        write(original, to: path)
        #expect(try f.open().failedAttempts == 1)
    }

    @Test func tamperedSettingsAreATypedError() throws {
        let f = Fixture()
        let store = try f.open()
        #expect(try store.loadSettings() == nil)
        try store.saveSettings([1, 2, 3])
        #expect(try store.loadSettings() == [1, 2, 3])
        let path = "\(f.state)/settings"
        var bytes = Array(FileManager.default.contents(atPath: path)!)
        bytes[10] ^= 1
        write(bytes, to: path)
        #expect(corruption { _ = try store.loadSettings() } == .authenticationFailure)
    }

    @Test(arguments: [
        "../etc/passwd", "com.example/../../x", "com.example/a\u{0}b", "com.example/" + String(repeating: "a", count: 250),
        "com.example", "/kind", "a/b/c", "com.example/kind#", "com.example/ki nd", "com.exämple/kind",
    ])
    func hostileWidgetIDIsRejected(_ id: String) {
        #expect(throws: WidgetID.Invalid.self) { try WidgetID(id) }
    }

    @Test func fileNamesRevealNoWidgetID() throws {
        let f = Fixture()
        let store = try f.open()
        try putOnePerClass(store)
        for path in try f.timelineFiles() {
            let name = String(path.split(separator: "/").last!)
            #expect(!name.contains("example"))
            #expect(name.count == 32 + 4)
        }
    }
}
