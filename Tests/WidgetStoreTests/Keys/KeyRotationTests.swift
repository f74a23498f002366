import Foundation
import Testing
import WidgetModel
@testable import StoreFiles
@testable import StoreKeys
@testable import StoreLedger
@testable import WidgetStore

/// Class keys rotate at every passcode set, change and removal (DESIGN §9), and the
/// attacks measured against a restored keybag (issue 16) open nothing written after it.
@Suite struct KeyRotationRules {
    private func keybagPath(_ f: Fixture) -> String { "\(f.state)/\(Keybag.fileName)" }

    private func keybag(_ f: Fixture) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: keybagPath(f))))
    }

    private func restore(_ bytes: [UInt8], keybagOf f: Fixture) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: keybagPath(f)))
    }

    private func put(_ store: TimelineStore, _ w: WidgetID, _ body: String) throws {
        try store.putTimeline(w, protectionClass: classOf[w]!, family: nil, reloadDue: nil, body: secure(body), placeholder: nil)
    }

    @Test func everyPasscodeSetChangeAndRemovalMakesANewGenerationThatNewWritesUse() throws {
        let f = Fixture()
        let store = try f.open()
        #expect(store.keyGenerations == [0])
        try put(store, widgetA, "before")
        try store.setPasscode(current: nil, new: secure("1111"), now: .at(t0))
        try put(store, widgetB, "after set")
        try store.setPasscode(current: secure("1111"), new: secure("2222"), now: .at(t0))
        try put(store, widgetC, "after change")
        try store.setPasscode(current: secure("2222"), new: nil, now: .at(t0))
        try put(store, widgetD, "after removal")
        #expect(store.keyGenerations == [0, 1, 2, 3])
        let expected: [(WidgetID, Keybag.Generation, String)] = [
            (widgetA, 0, "before"), (widgetB, 1, "after set"), (widgetC, 2, "after change"),
            (widgetD, Keybag.classDGeneration, "after removal"),
        ]
        // Older generations still read the files sealed to them, after a restart too.
        for reader in [store, try f.open()] {
            for (w, generation, body) in expected {
                #expect(try reader.metadata(w)?.keyGeneration == generation)
                #expect(text(try reader.readBody(w, allowOpenClassB: true)) == body)
            }
        }
    }

    @Test func aGenerationNoFileUsesIsDropped() throws {
        let f = Fixture()
        let store = try f.open()
        try put(store, widgetA, "one")
        _ = try store.listTimelines()  // every file verified: the generations in use are known
        try store.setPasscode(current: nil, new: secure("1111"), now: .at(t0))
        #expect(store.keyGenerations == [0, 1])  // widgetA's file is still sealed to 0
        try put(store, widgetA, "two")
        try store.foldJournal()
        #expect(store.keyGenerations == [1])
        #expect(try f.open().keyGenerations == [1])
        try store.deleteTimeline(widgetA)
        try store.setPasscode(current: secure("1111"), new: secure("2222"), now: .at(t0))
        #expect(store.keyGenerations == [2])
    }

    /// A passcode change judged now and completed once its keybag is written elsewhere
    /// (the daemon writes it off its loop): writes in between are still sealed to the
    /// generation that was newest, so that generation is kept even if no file used it,
    /// and they read back after the change and a restart.
    @Test func aWriteSealedWhileAPasscodeChangesKeybagIsWrittenStaysReadable() throws {
        let f = Fixture()
        let store = try f.open()
        _ = try store.listTimelines()  // every file verified (none): the generations in use are known
        let change = try store.beginSetPasscode(hasCurrent: false, hasNew: true, now: .at(t0))
        let judgement = try store.judgeSetPasscode(try change.derive(current: nil, new: secure("1111")), now: .at(t0))
        #expect(store.isJudging)
        try put(store, widgetA, "between")
        #expect(try store.metadata(widgetA)?.keyGeneration == 0)
        let written = try #require(judgement.write).perform()
        try store.complete(judgement, written: written, now: .at(t0))
        #expect(!store.isJudging)
        #expect(store.keyGenerations == [0, 1])
        try store.foldJournal()
        let reopened = try f.open()
        try reopened.unlock(passcode: secure("1111"), now: .at(t0))
        #expect(text(try reopened.readBody(widgetA, allowOpenClassB: true)) == "between")
    }

    @Test func noGenerationIsDroppedBeforeEveryFileIsVerified() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try put(store, widgetA, "one")
            try store.foldJournal()
        }
        let store = try f.open()  // nothing indexed yet: widgetA's file may use any generation
        try store.setPasscode(current: nil, new: secure("1111"), now: .at(t0))
        try store.setPasscode(current: secure("1111"), new: secure("2222"), now: .at(t0))
        #expect(store.keyGenerations == [0, 1, 2])
        try store.unlock(passcode: secure("2222"), now: .at(t0))
        #expect(text(try store.readBody(widgetA, allowOpenClassB: true)) == "one")
        // Once it is, the unused ones go at the next fold.
        _ = try store.listTimelines()
        try store.foldJournal()
        #expect(store.keyGenerations == [0, 2])
    }

    /// Issue 16: restoring the keybag from before a passcode was set started the daemon
    /// unlocked with no passcode and served class-A content written after it in clear.
    @Test func aKeybagFromBeforeThePasscodeWasSetOpensNothingWrittenAfter() throws {
        let f = Fixture()
        let old: [UInt8]
        do {
            let store = try f.open()
            try put(store, widgetD, "public")
            old = try keybag(f)
            try store.setPasscode(current: nil, new: secure("1234"), now: .at(t0))
            for w in [widgetA, widgetB, widgetC] { try put(store, w, "secret of \(w)") }
            try store.foldJournal()
        }
        let current = try keybag(f)
        try restore(old, keybagOf: f)
        let attacked = try f.open()
        #expect(!attacked.passcodeSet && attacked.deviceState == .unlocked)  // what the restore gives
        for w in [widgetA, widgetB, widgetC] {
            #expect(try attacked.metadata(w) != nil)  // hosts still get the placeholder
            #expect(corruption { _ = try attacked.readBody(w, allowOpenClassB: true) } == .unknownKeyGeneration)
        }
        #expect(text(try attacked.readBody(widgetD, allowOpenClassB: true)) == "public")
        // The real keybag back: the passcode opens it all.
        try restore(current, keybagOf: f)
        let owner = try f.open()
        try owner.unlock(passcode: secure("1234"), now: .at(t0))
        #expect(text(try owner.readBody(widgetA, allowOpenClassB: true)) == "secret of \(widgetA)")
    }

    /// Issue 16: restoring the keybag of the previous passcode made the old passcode
    /// unlock today's data.
    @Test func theKeybagOfThePreviousPasscodeDoesNotOpenTodaysData() throws {
        let f = Fixture()
        let old: [UInt8]
        do {
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1111"), now: .at(t0))
            old = try keybag(f)
            try store.setPasscode(current: secure("1111"), new: secure("2222"), now: .at(t0))
            for w in [widgetA, widgetB, widgetC] { try put(store, w, "today") }
            try store.foldJournal()
        }
        try restore(old, keybagOf: f)
        let attacked = try f.open()
        try attacked.unlock(passcode: secure("1111"), now: .at(t0))
        for w in [widgetA, widgetB, widgetC] {
            #expect(corruption { _ = try attacked.readBody(w, allowOpenClassB: true) } == .unknownKeyGeneration)
        }
    }

    @Test func aVersion1KeybagIsReadAndRewrittenAsTheCurrentVersion() throws {
        let f = Fixture()
        do {
            let store = try f.open()
            try putOnePerClass(store)
            try store.foldJournal()
            try restore(try version1Keybag(of: store), keybagOf: f)
        }
        let store = try f.open()
        for w in classOf.keys { #expect(text(try store.readBody(w, allowOpenClassB: true)) == "body of \(w)") }
        #expect(try keybag(f)[4] == Keybag.version)
        #expect(store.keyGenerations == [0])
    }

    @Test func theKeybagGrowsWithTheGenerationsFilesUseNotWithTheFiles() throws {
        var sizes: [Int] = []
        for timelines in [0, 500] {
            let f = Fixture()
            let store = try f.open()
            try store.setPasscode(current: nil, new: secure("1111"), now: .at(t0))
            try putOnePerClass(store)
            for i in 0..<timelines {
                try store.putTimeline(
                    widget("com.example.bulk/w#\(i)"), protectionClass: .complete, family: nil, reloadDue: nil,
                    body: secure("\(i)"), placeholder: nil)
            }
            _ = try store.listTimelines()
            try store.setPasscode(current: secure("1111"), new: secure("2222"), now: .at(t0))
            #expect(store.keyGenerations == [1, 2])
            sizes.append(try keybag(f).count)
        }
        #expect(sizes[0] == sizes[1])
    }
}

/// The keybag of `store` (one key generation) as the previous version wrote it (version 1).
func version1Keybag(of store: TimelineStore) throws -> [UInt8] {
    let bag = store.custody.keybag
    var w = ByteWriter()
    w.raw(Keybag.magic)
    w.u8(Keybag.version1)
    w.u64(bag.kdfCost.opsLimit)
    w.u64(bag.kdfCost.memLimit)
    w.block(bag.salt)
    w.u8(bag.passcodeSet ? 1 : 0)
    w.u32(0)
    w.date(nil)
    w.u8(0)
    w.raw([UInt8](repeating: 0, count: Keybag.tagByteCount))
    let generation = try #require(bag.generations.first)
    let entries = Keybag.passcodeClasses.map { ($0, generation.classes[$0]!) } + [(.none, bag.classD)]
    for (c, entry) in entries {
        w.u8(c.code)
        w.raw(entry.publicKey.bytes)
        w.block(entry.wrappedSecret)
    }
    let mac = try KeyedHash.hash(w.bytes, key: store.custody.subkeys.keybagMAC, outputLength: Keybag.macByteCount)
    return w.bytes + mac.withUnsafeBytes { Array($0) }
}
