import Foundation
import Testing
import WidgetModel
@testable import StoreFiles
@testable import StoreLedger
@testable import WidgetStore

/// Every altered file gives a typed error and never wrong data.
@Suite struct TamperingRules {
    /// An unlocked store with one class-A timeline; returns the store and its file.
    private func storeWithOneTimeline(_ f: Fixture, _ c: ProtectionClass = .complete) throws -> (TimelineStore, String, [UInt8]) {
        let store = try f.open()
        try store.putTimeline(
            widgetA, protectionClass: c, family: "systemSmall", reloadDue: t0, body: secure("secret balance 1,234.56"),
            placeholder: Array("balance".utf8))
        try store.foldJournal()  // the files, not the journal, are what this test examines
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
        try store.foldJournal()  // the files, not the journal, are what this test examines
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
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let otherPath = try f.timelineFiles().first { $0 != pathA }!
        var forged = originalA
        let id = Array(widgetA.description.utf8)
        let start = 20  // magic, version, class, key generation (4), wrap kind, generation (8), id length
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
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            try? store.unlock(passcode: secure("0000"), now: .at(t0))
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
        // A new store has its default settings, written before its keybag.
        let defaults = try #require(try store.loadSettings())
        #expect(try JSONDecoder().decode(Settings.self, from: Data(defaults)) == Settings())
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
        try store.foldJournal()  // the files, not the journal, are what this test examines
        for path in try f.timelineFiles() {
            let name = String(path.split(separator: "/").last!)
            #expect(!name.contains("example"))
            #expect(name.count == 32 + 4)
        }
    }
}
/// The file format and the version-1 and version-2 files it still reads (version 3 and
/// the wrap kinds of version 4: `ClassWrapRules`).
@Suite struct FileFormatRules {
    private func write(_ bytes: [UInt8], to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    }

    private func sealed(_ path: String) throws -> TimelineFile.Sealed {
        try TimelineFile.parse(Array(FileManager.default.contents(atPath: path)!), expected: nil, file: path)
    }

    private func ephemeralKey(_ path: String) throws -> PublicKey? {
        guard case .exchange(let key, _) = try sealed(path).keys else { return nil }
        return key
    }

    @Test(arguments: ProtectionClass.allCases)
    func aVersion1FileOfTheShippedVersionStillOpens(_ c: ProtectionClass) throws {
        let f = Fixture()
        let path: String
        do {
            let store = try f.open()
            try store.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("new"), placeholder: nil)
            try store.foldJournal()  // the files, not the journal, are what this test examines
            path = try f.timelineFiles()[0]
            #expect(FileManager.default.contents(atPath: path)![4] == TimelineFile.version)
            let metadata = TimelineMetadata(
                widget: widgetA, protectionClass: c, family: "systemSmall", generation: 7, reloadDue: t0,
                placeholder: Array("ph".utf8))
            let old = try TimelineFile.encodeVersion1(
                metadata, body: secure("shipped secret"), classPublicKey: store.classPublicKey(c),
                classDPublicKey: store.classPublicKey(.none))
            #expect(old[4] == 1)
            write(old, to: path)
        }
        let store = try f.open()
        let metadata = try #require(try store.metadata(widgetA))
        #expect(metadata.generation == 7 && metadata.family == "systemSmall" && metadata.placeholder == Array("ph".utf8))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "shipped secret")
        // The next write replaces it with a current-version file that builds on its generation.
        #expect(try store.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("v2"), placeholder: nil) == 8)
        try store.foldJournal()
        #expect(FileManager.default.contents(atPath: path)![4] == TimelineFile.version)
        #expect(text(try f.open().readBody(widgetA, allowOpenClassB: true)) == "v2")
    }

    @Test(arguments: ProtectionClass.allCases)
    func aVersion2FileOfThePreviousVersionStillOpens(_ c: ProtectionClass) throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("x"), placeholder: nil)
        try store.foldJournal()
        let path = try f.timelineFiles()[0]
        let metadata = TimelineMetadata(
            widget: widgetA, protectionClass: c, family: nil, generation: 5, reloadDue: nil, placeholder: nil)
        let kek = try KeyEncryptionKey.agree(with: store.classPublicKey(c))
        let old = try TimelineFile.encode(
            metadata, body: secure("previous"), wrap: .exchange(kek), metadataKey: store.custody.subkeys.timelineMetadata,
            version: TimelineFile.version2)
        #expect(old[4] == 2)
        write(old, to: path)
        let reopened = try f.open()
        #expect(try reopened.metadata(widgetA)?.generation == 5)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: true)) == "previous")
    }

    @Test func aVersionByteSwappedEitherWayIsCorrupt() throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("secret"), placeholder: nil)
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let path = try f.timelineFiles()[0]
        let v4 = Array(FileManager.default.contents(atPath: path)!)
        let metadata = TimelineMetadata(
            widget: widgetA, protectionClass: .complete, family: nil, generation: 1, reloadDue: nil, placeholder: nil)
        let v1 = try TimelineFile.encodeVersion1(
            metadata, body: secure("secret"), classPublicKey: store.classPublicKey(.complete),
            classDPublicKey: store.classPublicKey(.none))
        let kek = try KeyEncryptionKey.agree(with: store.classPublicKey(.complete))
        defer { kek.zero() }
        let v3 = try TimelineFile.encode(
            metadata, body: secure("secret"), wrap: .exchange(kek), metadataKey: store.custody.subkeys.timelineMetadata,
            version: TimelineFile.version3)
        let swaps: [([UInt8], UInt8)] = [
            (v4, 1), (v4, 2), (v4, 3), (v4, 5), (v3, 1), (v3, 2), (v3, 4), (v1, 2), (v1, 3), (v1, 4),
        ]
        for (bytes, other) in swaps {
            var edited = bytes
            edited[4] = other
            write(edited, to: path)
            store.closeTimeline(widgetA)
            #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } != nil)
            #expect(corruption { _ = try f.open().metadata(widgetA) } != nil)
        }
        write(v1, to: path)
        store.closeTimeline(widgetA)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "secret")
    }

    @Test func aBatchSharesOneExchangePerClassAndEveryFileItsOwnKey() throws {
        let f = Fixture()
        // Before the first unlock, so that classes A and C are wrapped by an exchange.
        do { try f.open().setPasscode(current: nil, new: secure("1234"), now: .at(t0)) }
        let store = try f.open()
        let widgets = (0..<6).map { widget("com.example.batch/w\($0)") }
        let writes = widgets.enumerated().map { index, w in
            TimelineStore.TimelineWrite(
                widget: w, protectionClass: index < 4 ? .complete : .completeUntilFirstUserAuthentication, family: nil,
                reloadDue: nil, body: secure("body \(index)"), placeholder: nil)
        }
        for result in store.putTimelines(writes) { _ = try result.get() }
        var keys: [WidgetID: PublicKey] = [:]
        try store.foldJournal()  // the files, not the journal, are what this test examines
        for path in try f.timelineFiles() {
            let key: PublicKey = try #require(try ephemeralKey(path))
            keys[try sealed(path).header.widget] = key
        }
        // Four class-A files, one exchange; the class-C files another.
        #expect(Set(widgets.prefix(4).map { keys[$0]! }).count == 1)
        #expect(Set(widgets.suffix(2).map { keys[$0]! }).count == 1)
        #expect(keys[widgets[0]] != keys[widgets[4]])
        // A later batch of the same class makes a fresh exchange.
        // (A write's body buffer becomes the cached body: a second write needs its own.)
        let again = TimelineStore.TimelineWrite(
            widget: widgets[0], protectionClass: .complete, family: nil, reloadDue: nil, body: secure("body 0"), placeholder: nil)
        for result in store.putTimelines([again]) { _ = try result.get() }
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let rewritten = try #require(try f.timelineFiles().first { try sealed($0).header.widget == widgets[0] })
        #expect(try ephemeralKey(rewritten) != keys[widgets[0]])
        // Each file still opens alone with its class key.
        let reopened = try f.open()
        try reopened.unlock(passcode: secure("1234"), now: .at(t0))
        for (index, w) in widgets.enumerated() {
            #expect(text(try reopened.readBody(w, allowOpenClassB: false)) == "body \(index)")
        }
    }

    @Test func aWrappedBodyKeyMovedToAnotherFileOfTheSameBatchFails() throws {
        let f = Fixture()
        // Before the first unlock: class A is wrapped by an exchange (the class wrap:
        // `ClassWrapRules`).
        do { try f.open().setPasscode(current: nil, new: secure("1234"), now: .at(t0)) }
        let store = try f.open()
        let other = widget("com.example.bank/balancf")  // same length as widgetA's id
        for result in store.putTimelines([
            .init(widget: widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("a"), placeholder: nil),
            .init(widget: other, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("b"), placeholder: nil),
        ]) { _ = try result.get() }
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let paths = try f.timelineFiles()
        let bytes = paths.map { Array(FileManager.default.contents(atPath: $0)!) }
        let parsed = try paths.map { try sealed($0) }
        #expect(bytes[0].count == bytes[1].count)
        // The ephemeral key and the wrapped key: the 104 bytes before the body block.
        let end = bytes[0].count - parsed[0].body.count - 4
        var forged = bytes[0]
        forged.replaceSubrange((end - 104)..<end, with: bytes[1][(end - 104)..<end])
        #expect(forged != bytes[0])
        write(forged, to: paths[0])
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        store.closeTimeline(parsed[0].header.widget)
        #expect(corruption { _ = try store.readBody(parsed[0].header.widget, allowOpenClassB: true) } == .authenticationFailure)
    }
}
