import Foundation
import SecureMemory
import Testing
import WidgetCrypto
@testable import StoreAnchor
@testable import StoreFiles
@testable import StoreLedger
@testable import WidgetStore

/// The catalog's files (version 2: head, base in verified blocks, log of changes): an
/// open reads no whole catalog, a save writes only what changed, and every part is
/// authenticated: altered, truncated or reordered, it is refused; a log cut short by a
/// crash before its head was written is the save that did not happen.
@Suite final class LedgerFormatRules {
    private let directory: String
    private let key: SecureBytes

    init() throws {
        directory = "/tmp/widgetstore-catalog-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        key = try [UInt8](repeating: 7, count: 32).withUnsafeBytes { try SecureBytes(copying: $0) }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    private func path(_ name: String) -> String { "\(directory)/\(name)" }
    private func bytes(_ name: String) throws -> [UInt8] { Array(try #require(FileManager.default.contents(atPath: path(name)))) }
    private func write(_ bytes: [UInt8], _ name: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path(name))) }
    private func load(minimum: Int = 4) throws -> GenerationLedger { try #require(try GenerationLedger.load(stateDirectory: directory, macKey: key, anchor: RollbackAnchor(counter: nil), compactionMinimum: minimum)) }
    private func baseNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("catalog.base.") }.sorted()
    }

    private static func key(_ i: Int) -> FileDigest {
        FileDigest(high: UInt64(i) &* 0x9E37_79B9_7F4A_7C15, low: UInt64(i))
    }

    /// A catalog of `count` widgets at generation `i + 1`, saved in batches of `batch`.
    private func filled(_ count: Int, batch: Int, minimum: Int = 4) throws -> GenerationLedger {
        let catalog = GenerationLedger.empty(stateDirectory: directory, macKey: key, anchor: RollbackAnchor(counter: nil), compactionMinimum: minimum)
        for start in stride(from: 0, to: count, by: batch) {
            for i in start..<min(start + batch, count) { catalog.record(Self.key(i), generation: UInt64(i + 1)) }
            try catalog.save()
        }
        return catalog
    }

    @Test func aCompactedLedgerAnswersAsTheRecordsSaid() throws {
        _ = try filled(1000, batch: 50)
        #expect(try baseNames().count == 1)
        let catalog = try load()
        for i in [0, 1, 127, 128, 500, 999] {
            #expect(try catalog.lastGeneration(Self.key(i)) == UInt64(i + 1))
            #expect(try catalog.verdict(Self.key(i), generation: UInt64(i)) == .rolledBack)
            #expect(try catalog.verdict(Self.key(i), generation: UInt64(i + 1)) == .current)
        }
        #expect(try catalog.lastGeneration(Self.key(5000)) == 0)
        // A deletion recorded after the compaction is above the base's generation, and is kept.
        try catalog.recordDeleted(Self.key(10), generation: 3)
        try catalog.save()
        #expect(try load().verdict(Self.key(10), generation: 11) == .deleted)
        #expect(try load().lastGeneration(Self.key(10)) == 11)
    }

    @Test func aSaveAppendsOnlyWhatChanged() throws {
        let catalog = try filled(1000, batch: 1000, minimum: 100)
        let base = try #require(try baseNames().first)
        let baseBefore = try bytes(base)
        let logBefore = FileManager.default.contents(atPath: path(GenerationLedger.logFileName))?.count ?? 0
        catalog.record(Self.key(3), generation: 40)
        try catalog.save()
        // One batch of one entry: count, entry, chain.
        #expect(try bytes(GenerationLedger.logFileName).count == logBefore + 4 + 24 + 32)
        #expect(try bytes(base) == baseBefore)
        #expect(try bytes(GenerationLedger.fileName).count == 141)
        #expect(try load(minimum: 100).lastGeneration(Self.key(3)) == 40)
    }

    @Test func anOpenReadsNoBaseBlockAndAnAlteredBlockIsRefusedWhenRead() throws {
        _ = try filled(1000, batch: 1000, minimum: 100)
        let base = try #require(try baseNames().first)
        var edited = try bytes(base)
        edited[GenerationLedgerBase.headerByteCount + 200 * 24 + 20] ^= 1  // block 1's entry 72, its generation
        try write(edited, base)
        // The open verified the head, the block table and the log, not the blocks.
        let catalog = try load(minimum: 100)
        #expect(throws: FileError.corrupt(file: path(base), reason: .authenticationFailure)) {
            for i in 0..<1000 { _ = try catalog.lastGeneration(Self.key(i)) }
        }
    }

    @Test func reorderedBaseBlocksAreRefused() throws {
        _ = try filled(1000, batch: 1000, minimum: 100)
        let base = try #require(try baseNames().first)
        var edited = try bytes(base)
        let block = 128 * 24
        let start = GenerationLedgerBase.headerByteCount
        let first = Array(edited[start..<start + block])
        edited.replaceSubrange(start..<start + block, with: edited[start + block..<start + 2 * block])
        edited.replaceSubrange(start + block..<start + 2 * block, with: first)
        try write(edited, base)
        let catalog = try load(minimum: 100)
        #expect(throws: FileError.corrupt(file: path(base), reason: .authenticationFailure)) {
            for i in 0..<1000 { _ = try catalog.lastGeneration(Self.key(i)) }
        }
    }

    @Test func aTruncatedOrAlteredBaseTableIsAStartError() throws {
        _ = try filled(1000, batch: 1000, minimum: 100)
        let base = try #require(try baseNames().first)
        let original = try bytes(base)
        try write(Array(original.dropLast(10)), base)
        #expect(throws: FileError.corrupt(file: path(base), reason: .truncated)) { _ = try load(minimum: 100) }
        var edited = original
        edited[edited.count - 40] ^= 1  // the last block's MAC in the table
        try write(edited, base)
        #expect(throws: FileError.corrupt(file: path(base), reason: .authenticationFailure)) { _ = try load(minimum: 100) }
    }

    @Test func aBaseFromAnotherCompactionIsRefused() throws {
        let catalog = try filled(1000, batch: 1000, minimum: 100)
        let base = try #require(try baseNames().first)
        let first = try bytes(base)
        for i in 0..<200 { catalog.record(Self.key(i), generation: 5000) }
        try catalog.save()
        let next = try #require(try baseNames().first)
        #expect(next != base)
        // The earlier base under the later one's name: its sequence and table differ from the head's.
        try write(first, next)
        #expect(throws: FileError.self) { _ = try load(minimum: 100) }
    }

    @Test func anAlteredTruncatedOrReorderedLogIsAStartError() throws {
        _ = try filled(30, batch: 10, minimum: 1000)
        let log = try bytes(GenerationLedger.logFileName)
        let batch = 4 + 10 * 24 + 32
        #expect(log.count == 3 * batch)
        var altered = log
        altered[4 + 16] ^= 1
        try write(altered, GenerationLedger.logFileName)
        #expect(throws: FileError.corrupt(file: path(GenerationLedger.logFileName), reason: .authenticationFailure)) { _ = try load() }
        try write(Array(log.prefix(2 * batch)), GenerationLedger.logFileName)
        #expect(throws: FileError.corrupt(file: path(GenerationLedger.logFileName), reason: .truncated)) { _ = try load() }
        var reordered: [UInt8] = Array(log[batch..<2 * batch])
        reordered += log[0..<batch]
        reordered += log[(2 * batch)...]
        try write(reordered, GenerationLedger.logFileName)
        #expect(throws: FileError.corrupt(file: path(GenerationLedger.logFileName), reason: .authenticationFailure)) { _ = try load() }
    }

    @Test func aLogLongerThanItsHeadIsAnAppendACrashCutOff() throws {
        _ = try filled(30, batch: 10, minimum: 1000)
        let log = try bytes(GenerationLedger.logFileName)
        try write(log + Array(repeating: 0xAB, count: 100), GenerationLedger.logFileName)
        let catalog = try load(minimum: 1000)
        #expect(try catalog.lastGeneration(Self.key(29)) == 30)
        // The next save writes over the stray bytes, and the next open reads it.
        catalog.record(Self.key(100), generation: 7)
        try catalog.save()
        #expect(try load(minimum: 1000).lastGeneration(Self.key(100)) == 7)
    }

    @Test func anAlteredOrTruncatedHeadIsAStartError() throws {
        _ = try filled(30, batch: 10)
        let head = try bytes(GenerationLedger.fileName)
        var edited = head
        edited[60] ^= 1
        try write(edited, GenerationLedger.fileName)
        #expect(throws: FileError.corrupt(file: path(GenerationLedger.fileName), reason: .authenticationFailure)) { _ = try load() }
        try write(Array(head.prefix(30)), GenerationLedger.fileName)
        #expect(throws: FileError.self) { _ = try load() }
    }

    /// DESIGN §9: the head carries the rollback anchors under its MAC, so a head whose
    /// anchor was lowered (to pass for an older counter value) is refused.
    @Test func theHeadCarriesTheRollbackAnchorsUnderItsMAC() throws {
        let catalog = try filled(30, batch: 10)
        catalog.record(Self.key(1), generation: 50)
        try catalog.save(carrying: AnchorValues(keybag: 7, catalog: 9))
        #expect(try load().loadedAnchors == AnchorValues(keybag: 7, catalog: 9))
        var edited = try bytes(GenerationLedger.fileName)
        edited[101] ^= 1
        try write(edited, GenerationLedger.fileName)
        #expect(throws: FileError.corrupt(file: path(GenerationLedger.fileName), reason: .authenticationFailure)) { _ = try load() }
    }

    /// Version 3: once the usage is known, every head carries each provider's usage
    /// under the MAC; a catalog that does not know it writes version 2.
    @Test func everyHeadCarriesTheUsageTableOnceItIsKnown() throws {
        let catalog = try filled(30, batch: 10)
        #expect(try bytes(GenerationLedger.fileName)[4] == 2)
        #expect(try load().foldedUsage == nil)
        let table = UsageTable(rows: [
            "com.example.clock": .init(widgets: 3, bytes: 4096), "com.example.a": .init(widgets: 1, bytes: 1 << 40),
        ])
        catalog.record(Self.key(1), generation: 50)
        try catalog.save(usage: table)
        let head = try bytes(GenerationLedger.fileName)
        #expect(head[4] == 3)
        // Sorted by id: "com.example.a" first.
        #expect(head[109..<113].elementsEqual([2, 0, 0, 0]) && head[114..<127].elementsEqual(Array("com.example.a".utf8)))
        let loaded = try load()
        #expect(loaded.foldedUsage == table)
        #expect(try loaded.lastGeneration(Self.key(1)) == 50)
        catalog.record(Self.key(2), generation: 51)
        try catalog.save()
        #expect(try bytes(GenerationLedger.fileName)[4] == 3)
        #expect(try load().foldedUsage == table)
        // An empty table is a known usage of nothing, not an unknown one.
        try catalog.save(usage: UsageTable())
        #expect(try load().foldedUsage == UsageTable())
    }

    @Test func anAlteredOrMalformedUsageTableIsAStartError() throws {
        let catalog = try filled(30, batch: 10)
        try catalog.save(usage: UsageTable(rows: ["com.example.clock": .init(widgets: 3, bytes: 4096)]))
        let head = try bytes(GenerationLedger.fileName)
        // A count lowered in place fails the MAC, as any altered field does.
        var edited = head
        edited[head.count - 32 - 16] ^= 1
        try write(edited, GenerationLedger.fileName)
        #expect(throws: FileError.corrupt(file: path(GenerationLedger.fileName), reason: .authenticationFailure)) { _ = try load() }
        // Well authenticated but not a table (cut short, or rows out of order): malformed.
        for content in [Array(head.dropLast(32 + 1)), Array(head.dropLast(32)) + [0]] {
            let mac = try KeyedHash.hash(content, key: key, outputLength: 32)
            try write(content + mac.withUnsafeBytes { Array($0) }, GenerationLedger.fileName)
            #expect(throws: FileError.corrupt(file: path(GenerationLedger.fileName), reason: .malformed)) { _ = try load() }
        }
        #expect(UsageTable.read(ArraySlice([2, 0, 0, 0, 1, 0x62] + [UInt8](repeating: 0, count: 16) + [1, 0x61] + [UInt8](repeating: 0, count: 16))) == nil)
        #expect(UsageTable.read(ArraySlice([1, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16))) == nil)
    }

    @Test func aVersion1LedgerIsReadAndRewrittenAsVersion2() throws {
        var content = Array("WCAT".utf8) + [1]
        withUnsafeBytes(of: UInt32(3).littleEndian) { content += $0 }
        for (i, deleted) in [(1, UInt8(0)), (2, 1), (3, 0)] {
            let key = Self.key(i)
            withUnsafeBytes(of: key.high.bigEndian) { content += $0 }
            withUnsafeBytes(of: key.low.bigEndian) { content += $0 }
            withUnsafeBytes(of: UInt64(10 * i).littleEndian) { content += $0 }
            content.append(deleted)
        }
        let mac = try KeyedHash.hash(content, key: key, outputLength: 32)
        try write(content + mac.withUnsafeBytes { Array($0) }, GenerationLedger.fileName)
        let catalog = try load()
        #expect(try catalog.verdict(Self.key(1), generation: 9) == .rolledBack)
        #expect(try catalog.verdict(Self.key(2), generation: 20) == .deleted)
        #expect(try catalog.lastGeneration(Self.key(3)) == 30)
        #expect(try bytes(GenerationLedger.fileName)[4] == 2)
        #expect(try load().verdict(Self.key(2), generation: 20) == .deleted)
    }

    @Test func compactionKeepsWhatWasRecordedAboveTheBase() throws {
        let catalog = try filled(200, batch: 200, minimum: 100)
        // Deletions and rewrites over the base, then another compaction.
        for i in 0..<150 { try catalog.recordDeleted(Self.key(i), generation: 0) }
        try catalog.save()
        let reopened = try load(minimum: 100)
        #expect(try reopened.verdict(Self.key(0), generation: 1) == .deleted)
        #expect(try reopened.verdict(Self.key(0), generation: 2) == .current)
        #expect(try reopened.verdict(Self.key(199), generation: 199) == .rolledBack)
        #expect(try baseNames().count == 1)
    }
}
