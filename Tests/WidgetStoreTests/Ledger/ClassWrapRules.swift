import Foundation
import SecureMemory
import Testing
import WidgetCrypto
import WidgetModel
@testable import StoreLedger
@testable import WidgetStore

/// File format version 4: a body key wrapped under the class wrap key while its class
/// secret is held, by an exchange while it is not; version 3 files still open.
@Suite struct ClassWrapRules {
    /// Offset of the wrap kind: magic 4, version 1, class 1, key generation 4.
    static let wrapKindOffset = 10

    private func write(_ bytes: [UInt8], to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
    }

    private func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path)!) }

    private func sealed(_ path: String) throws -> TimelineFile.Sealed {
        try TimelineFile.parse(bytes(path), expected: nil, file: path)
    }

    /// The file of `w` in `f`'s timelines directory.
    private func file(of w: WidgetID, in f: Fixture) throws -> String {
        try #require(try f.timelineFiles().first { try sealed($0).header.widget == w })
    }

    private func isClassWrap(_ keys: TimelineFile.SectionKeys) -> Bool {
        if case .classWrap = keys { return true }
        return false
    }

    private func metadata(_ w: WidgetID, _ c: ProtectionClass, generation: UInt64 = 1) -> TimelineMetadata {
        TimelineMetadata(widget: w, protectionClass: c, family: nil, generation: generation, reloadDue: nil, placeholder: nil)
    }

    /// A store with passcode "1234", reopened: before its first unlock, only class D held.
    private func storeBeforeFirstUnlock(_ f: Fixture) throws -> TimelineStore {
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
        }
        return try f.open()
    }

    @Test(arguments: ProtectionClass.allCases)
    func aFileWrittenWhileItsClassIsOpenIsWrappedUnderTheClassKey(_ c: ProtectionClass) throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: c, family: "systemSmall", reloadDue: nil, body: secure("open"), placeholder: nil)
        try store.foldJournal()  // the files, not the journal, are what this test examines
        let path = try file(of: widgetA, in: f)
        let written = bytes(path)
        #expect(written[4] == TimelineFile.version && written[4] == 4)
        #expect(written[Self.wrapKindOffset] == TimelineFile.WrapKind.classKey.rawValue)
        let parsed = try sealed(path)
        #expect(parsed.header.wrapKind == .classKey && isClassWrap(parsed.keys))
        // No ephemeral key: the size the quota counted is the size written.
        var m = metadata(widgetA, c)
        m.family = "systemSmall"
        m.keyGeneration = parsed.header.keyGeneration
        #expect(TimelineFile.encodedCount(m, bodyCount: 4, wrap: .classKey) == written.count)
        #expect(TimelineFile.encodedCount(m, bodyCount: 4, wrap: .exchange) == written.count + PublicKey.byteCount)
        #expect(text(try f.open().readBody(widgetA, allowOpenClassB: true)) == "open")
    }

    @Test func aClassWhoseKeyIsNotHeldIsWrittenByAnExchangeAndReadAfterUnlock() throws {
        let f = Fixture()
        let store = try storeBeforeFirstUnlock(f)
        // Before the first unlock: only class D's secret is held.
        try putOnePerClass(store)
        try store.foldJournal()
        for (w, c) in classOf {
            let parsed = try sealed(try file(of: w, in: f))
            #expect(parsed.header.wrapKind == (c == .none ? .classKey : .exchange), "\(c)")
            #expect(isClassWrap(parsed.keys) == (c == .none))
        }
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        // Unlocked, then locked: A and B purged, C and D still held.
        store.lock(now: .at(t0), purgeAtOnce: true)
        for (w, c) in classOf {
            try store.putTimeline(w, protectionClass: c, family: nil, reloadDue: nil, body: secure("locked \(c)"), placeholder: nil)
        }
        try store.foldJournal()
        for (w, c) in classOf {
            let expected: TimelineFile.WrapKind = c == .complete || c == .completeUnlessOpen ? .exchange : .classKey
            #expect(try sealed(try file(of: w, in: f)).header.wrapKind == expected, "\(c)")
        }
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        for (w, c) in classOf {
            store.closeTimeline(w)
            #expect(text(try store.readBody(w, allowOpenClassB: true)) == "locked \(c)")
        }
        let reopened = try f.open()
        try reopened.unlock(passcode: secure("1234"), now: .at(t0))
        for (w, c) in classOf { #expect(text(try reopened.readBody(w, allowOpenClassB: true)) == "locked \(c)") }
    }

    @Test(arguments: ProtectionClass.allCases)
    func theWrapKindEditedIsCorrupt(_ c: ProtectionClass) throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("secret"), placeholder: nil)
        try store.foldJournal()
        let path = try file(of: widgetA, in: f)
        let original = bytes(path)
        #expect(original[Self.wrapKindOffset] == 1)
        let parsed = try sealed(path)
        let wrappedKeyAt = original.count - parsed.body.count - 4 - (AEAD.keyByteCount + AEAD.overhead)
        // The byte alone edited: the framing no longer matches (or names no kind).
        for kind in [UInt8(0), 2, 255] {
            var edited = original
            edited[Self.wrapKindOffset] = kind
            write(edited, to: path)
            store.closeTimeline(widgetA)
            #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } != nil)
            #expect(corruption { _ = try f.open().metadata(widgetA) } != nil)
        }
        // Edited to kind 0 with an ephemeral key put in, so that it frames as an
        // exchange: the header is every section's associated data.
        var asExchange = original
        asExchange[Self.wrapKindOffset] = 0
        asExchange.insert(contentsOf: try KeyPair.generate().publicKey.bytes, at: wrappedKeyAt)
        write(asExchange, to: path)
        store.closeTimeline(widgetA)
        #expect(try TimelineFile.parse(asExchange, expected: widgetA, file: path).header.wrapKind == .exchange)
        #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } == .authenticationFailure)
        #expect(corruption { _ = try f.open().metadata(widgetA) } == .authenticationFailure)
        // An exchange's file edited to kind 1, its ephemeral key taken out.
        let kek = try KeyEncryptionKey.agree(with: store.classPublicKey(c))
        defer { kek.zero() }
        var m = metadata(widgetA, c, generation: 1)
        m.keyGeneration = parsed.header.keyGeneration
        let exchange = try TimelineFile.encode(
            m, body: secure("secret"), wrap: .exchange(kek), metadataKey: store.custody.subkeys.timelineMetadata)
        #expect(exchange[Self.wrapKindOffset] == 0 && exchange.count == original.count + PublicKey.byteCount)
        write(exchange, to: path)
        store.closeTimeline(widgetA)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "secret")
        var asClassWrap = exchange
        asClassWrap[Self.wrapKindOffset] = 1
        asClassWrap.removeSubrange((wrappedKeyAt)..<(wrappedKeyAt + PublicKey.byteCount))
        write(asClassWrap, to: path)
        store.closeTimeline(widgetA)
        #expect(try TimelineFile.parse(asClassWrap, expected: widgetA, file: path).header.wrapKind == .classKey)
        #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } == .authenticationFailure)
        #expect(corruption { _ = try f.open().metadata(widgetA) } == .authenticationFailure)
    }

    @Test func aWrappedBodyKeyMovedToAnotherClassWrapFileFails() throws {
        let f = Fixture()
        let store = try f.open()
        let other = widget("com.example.bank/balancf")  // same length as widgetA's id
        for result in store.putTimelines([
            .init(widget: widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("a"), placeholder: nil),
            .init(widget: other, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("b"), placeholder: nil),
        ]) { _ = try result.get() }
        try store.foldJournal()
        let paths = [try file(of: widgetA, in: f), try file(of: other, in: f)]
        let files = paths.map { bytes($0) }
        let parsed = try paths.map { try sealed($0) }
        #expect(parsed.allSatisfy { isClassWrap($0.keys) })
        #expect(files[0].count == files[1].count)
        // One wrap key for both, but each wrapped key is bound to its own file's header.
        let end = files[0].count - parsed[0].body.count - 4
        let wrapped = AEAD.keyByteCount + AEAD.overhead
        var forged = files[0]
        forged.replaceSubrange((end - wrapped)..<end, with: files[1][(end - wrapped)..<end])
        #expect(forged != files[0])
        write(forged, to: paths[0])
        store.closeTimeline(widgetA)
        #expect(corruption { _ = try store.readBody(widgetA, allowOpenClassB: true) } == .authenticationFailure)
    }

    @Test(arguments: ProtectionClass.allCases)
    func aVersion3FileStillOpens(_ c: ProtectionClass) throws {
        let f = Fixture()
        let store = try f.open()
        try store.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("x"), placeholder: nil)
        try store.foldJournal()
        let path = try f.timelineFiles()[0]
        var m = metadata(widgetA, c, generation: 5)
        m.keyGeneration = store.custody.keybag.writeGeneration(c)
        let kek = try KeyEncryptionKey.agree(with: store.classPublicKey(c))
        defer { kek.zero() }
        let old = try TimelineFile.encode(
            m, body: secure("version 3"), wrap: .exchange(kek), metadataKey: store.custody.subkeys.timelineMetadata,
            version: TimelineFile.version3)
        #expect(old[4] == 3)
        #expect(TimelineFile.generation(of: old) == 5)
        write(old, to: path)
        let reopened = try f.open()
        #expect(try reopened.metadata(widgetA)?.generation == 5)
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: true)) == "version 3")
        // The next write replaces it with a version-4 file that builds on its generation.
        #expect(try reopened.putTimeline(widgetA, protectionClass: c, family: nil, reloadDue: nil, body: secure("v4"), placeholder: nil) == 6)
        try reopened.foldJournal()
        let rewritten = bytes(path)
        #expect(rewritten[4] == 4 && TimelineFile.generation(of: rewritten) == 6)
        #expect(text(try f.open().readBody(widgetA, allowOpenClassB: true)) == "v4")
    }

    @Test func theWrapKeyIsTheCallersCopyAndNoneIsDerivedAfterAPurge() throws {
        let f = Fixture()
        let store = try storeBeforeFirstUnlock(f)
        let generation = store.custody.keybag.writeGeneration(.complete)
        #expect(store.custody.classWrapKey(.complete, generation: generation) == nil, "not released yet")
        #expect(store.custody.classWrapKey(.none, generation: 0) != nil, "class D is always held")
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        let copy = try #require(store.custody.classWrapKey(.complete, generation: generation))
        let again = try #require(store.custody.classWrapKey(.complete, generation: generation))
        #expect(copy.count == AEAD.keyByteCount && copy.constantTimeEquals(again))
        #expect(store.custody.classWrapKey(.complete, generation: generation + 1) == nil, "no such generation")
        store.lock(now: .at(t0), purgeAtOnce: true)
        // The purge zeroed the held pair, not the copy handed out before it.
        #expect(copy.count == AEAD.keyByteCount && copy.constantTimeEquals(again))
        #expect(copy.withUnsafeBytes { $0.contains { $0 != 0 } })
        #expect(store.custody.classWrapKey(.complete, generation: generation) == nil)
        #expect(store.custody.classWrapKey(.completeUnlessOpen, generation: generation) == nil)
        #expect(store.custody.classWrapKey(.completeUntilFirstUserAuthentication, generation: generation) != nil)
        // A pair whose secret was emptied derives nothing.
        let pair = try KeyPair.generate()
        pair.secretKey.removeAll()
        #expect(throws: CryptoError.self) { try ClassWrapKey.derive(from: pair, classCode: 1, generation: 0) }
    }

    @Test func aBatchStagedBeforeALockSealsWithItsOwnCopyAndOneStagedAfterByAnExchange() throws {
        let f = Fixture()
        let store = try storeBeforeFirstUnlock(f)
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        let before = store.prepareWrites([
            .init(widget: widgetA, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("staged"), placeholder: nil)
        ])
        #expect(before.staged.map(before.wrapKind) == [.classKey] && before.wrapKeys.count == 1)
        // The lock purges class A while the batch is between staging and sealing.
        store.lock(now: .at(t0), purgeAtOnce: true)
        let committed = TimelineStore.commit(before)
        // The batch's copy of the wrap key is zeroed once its files are sealed.
        #expect(before.wrapKeys.values.allSatisfy { $0.withUnsafeBytes { !$0.contains { $0 != 0 } } })
        #expect(try store.finishWrites(committed)[0].get() == 1)
        let after = store.prepareWrites([
            .init(widget: widgetB, protectionClass: .complete, family: nil, reloadDue: nil, body: secure("locked"), placeholder: nil)
        ])
        #expect(after.staged.map(after.wrapKind) == [.exchange] && after.wrapKeys.isEmpty)
        #expect(try store.finishWrites(TimelineStore.commit(after))[0].get() == 1)
        try store.foldJournal()
        #expect(try sealed(try file(of: widgetA, in: f)).header.wrapKind == .classKey)
        #expect(try sealed(try file(of: widgetB, in: f)).header.wrapKind == .exchange)
        #expect(throws: StoreError.protectedDataUnavailable) { try store.readBody(widgetA, allowOpenClassB: true) }
        try store.unlock(passcode: secure("1234"), now: .at(t0))
        store.closeTimeline(widgetA)
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "staged")
        #expect(text(try store.readBody(widgetB, allowOpenClassB: true)) == "locked")
    }
}
