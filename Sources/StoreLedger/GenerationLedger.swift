// Target StoreLedger: the store's timeline files. Its face, for WidgetStore: the
// timeline file format (`TimelineFile`: encode/seal, parse, `openMetadata`, `openBody`),
// the journal (`Journal`: `append`, `pending`, `fold`, `discard`), the generation ledger
// (`GenerationLedger`: `verdict`/`admits` for a digest and generation, `record`,
// `recordDeleted`, the saves) and the key of a file (`FileDigest`), on StoreFiles'
// file system calls.
// It cannot see the key lifecycle or the keybag (StoreKeys is its sibling: keys and MAC
// keys are handed in as values), nor the index, tallies or caches of WidgetStore.
// It throws `FileError` (the anchor's failures carried as `.anchor`); the facade maps
// it with `StoreError.init(_: FileError)`.

import FoundationEssentials
import Glibc
import SecureMemory
import StoreAnchor
import StoreFiles
import WidgetCrypto
import WidgetdPOSIX

/// The authenticated catalog (DESIGN §9): each widget's latest generation and each
/// deletion, under device-key MACs, so that a single timeline file restored from a
/// backup is refused as rolled back, and a deleted widget's file that reappears is ignored.
///
/// Three files, so that neither opening nor saving costs anything per stored widget:
///
/// ```
/// catalog          the head: "WCAT" | version u8 (2 or 3) | base sequence u64 | base count u64 | base table MAC (32)
///                  | log bytes u64 | log chain (32) | keybag anchor u64 | catalog anchor u64
///                  | (version 3 only) usage table (`UsageTable`)
///                  || MAC (32): keyed BLAKE2b of all before it
/// catalog.base.<n> the entries as of the last compaction, sorted, in verified blocks (`GenerationLedgerBase`)
/// catalog.log      what changed since: batches of count u32 | entries (digest 16 | generation << 1 | deleted u64)
///                  | chain (32): keyed BLAKE2b of "WCLG" | the previous chain | count | entries
/// ```
///
/// The head is the one authenticated root, rewritten atomically (it is 141 bytes) at
/// every save: it names the base by sequence and table MAC and says how many log bytes
/// count and which chain they end in (the first batch's previous chain is the base's
/// table MAC). So an altered, truncated or reordered head, base block or log batch is
/// refused (`corrupt`), and a log longer than the head says — an append a crash cut off
/// before its head was written — is ignored: that save had not happened, and the
/// journal it belonged to still holds its writes. Version 1 (one file holding every
/// entry under one MAC) is still read, and rewritten as version 2 at that open.
///
/// Version 3 is version 2 with a usage table after the anchors: what each provider's
/// timeline files take as they are on disk (`foldedUsage`), so that a start, orderly
/// or after a crash, judges quotas before it has read every file. It follows the
/// files: every change of them (a fold, a batch written straight into its files, a
/// delete) runs through `changeFiles`, which takes what the change did (`UsageChange`)
/// into the table before the save that follows, and withholds the table from every
/// head written while files are changing (a head carrying one is rewritten without it
/// first), so that no crash leaves a table beside files it does not describe. A change
/// it cannot judge, and a catalog made from files or rebuilt, leave the usage unknown
/// (version 2) until an orderly stop writes the store's count (`save(usage:)`). The
/// table may count too much, never too little. A table altered or planted fails the
/// head's MAC like any other field.
///
/// Memory holds the log's entries (`recent`) and one 16-byte key and 32-byte MAC per
/// base block of 128; a lookup of a widget not in the log reads and verifies its block
/// (a small cache keeps recent ones). A save appends what changed since the last one;
/// once the log holds more than 1/32 of the base (and at least 1,024 entries), it is
/// compacted instead: the base's blocks, verified as they are read, are merged with
/// the log into the next base, and the log starts again.
///
/// Kept durable with the journal: a fold records the generations it writes into the
/// files and saves the catalog (after the files, before the journal is emptied), a
/// delete saves it before it removes the file, and without a journal each batch of
/// direct writes saves it after its files. Between two folds the journal's records are
/// the newest truth and the catalog lags; a generation only ever goes up in it
/// (`record`), so a journal restored from a backup cannot lower it either.
///
/// A new keybag is made with an empty catalog beside it, before the keybag is
/// written, so a keybag without its catalog is a start error (`ledgerMissing`): the
/// catalog removed to allow a rollback. A store of the previous version (keybag
/// version 1) gets its catalog from the generations its files hold at that open.
///
/// What it cannot see by itself: the catalog restored together with its files (a whole
/// state-directory rollback). A counter outside the directory (a TPM's NV counter,
/// `RollbackCounter`) tells that catalog is old: the head carries the anchors
/// (`RollbackAnchor`, zero in software mode and in version 1); a fold and an orderly
/// stop save it anchored (`saveAnchored`), and the saves in between carry the last anchor.
///
/// Threading: every method may run on any thread (a fold runs beside the store's
/// thread); a lock guards the entries and the base, another serialises saves.
package final class GenerationLedger: @unchecked Sendable {
    package static let fileName = "catalog"
    package static let logFileName = "catalog.log"
    private static let magic = Array("WCAT".utf8)
    private static let logMagic = Array("WCLG".utf8)
    private static let version: UInt8 = 2
    /// A version-2 head followed by a usage table.
    private static let versionWithUsage: UInt8 = 3
    private static let macByteCount = 32
    private static let headByteCount = 4 + 1 + 8 + 8 + 32 + 8 + 32 + 8 + 8 + macByteCount
    private static let version1EntryByteCount = 16 + 8 + 1
    private static let version1HeaderByteCount = 4 + 1 + 4

    /// What the catalog says of one file as found on disk.
    package enum Verdict: Equatable {
        /// No newer generation recorded: serve it.
        case current
        /// Older than the generation recorded: refuse its body.
        case rolledBack
        /// The widget was deleted after this file was written: it does not exist.
        case deleted
    }

    private let stateDirectory: String
    private let macKey: SecureBytes
    /// Anchors the saves of a fold or an orderly stop to the rollback counter.
    private let anchor: RollbackAnchor
    /// The anchors the head carried when it was loaded (`none` for a new catalog or
    /// version 1).
    package private(set) var loadedAnchors = AnchorValues.none
    /// Each provider's usage by the timeline files as folded (`nil`: not known), which
    /// every head written while no file is changing carries (guarded by `lock`).
    private var knownUsage: UsageTable?
    /// Whether a change of files is under way (`changeFiles`; guarded by `lock`): no
    /// head carries the table meanwhile.
    private var changing = false
    /// Serialises the changes of files that the table follows (`changeFiles`).
    private let changeLock = ThreadLock()
    /// Whether the head on disk carries a table, and the anchors it carries (guarded by
    /// `saveLock`).
    private var headCarriesUsage = false
    private var headAnchors = AnchorValues.none
    /// Whether a save since the last anchored one left changes the counter does not
    /// anchor yet (guarded by `saveLock`).
    private var savedSinceAnchor = false
    private let lock = ThreadLock()
    /// Serialises saves (a fold on a commit thread, a delete on the store's): each takes
    /// its snapshot and writes it under this lock, so the last file written holds every
    /// record made before the last save began.
    private let saveLock = ThreadLock()
    /// The entries as of the last compaction (`nil`: none yet).
    private var base: GenerationLedgerBase?
    /// Per file-name digest, what was recorded since the last compaction: generation << 1
    /// | deleted. A key's value is the larger of this and the base's (a generation only
    /// goes up, and at one generation a deletion comes after the file).
    private var recent = DigestTable<UInt64>()
    /// What was recorded since the last save (a subset of `recent`).
    private var unsaved = DigestTable<UInt64>()
    /// The log's length in bytes, its entries and its chain, as the head last written says.
    private var logBytes = 0
    private var logEntries = 0
    private var logChain: [UInt8]
    /// The log's entries up to which it is never compacted; past it, a save compacts once
    /// the log holds more than 1/32 of the base (smaller in tests, to compact small catalogs).
    package let compactionMinimum: Int

    private init(stateDirectory: String, macKey: SecureBytes, anchor: RollbackAnchor, compactionMinimum: Int) {
        self.stateDirectory = stateDirectory
        self.macKey = macKey
        self.anchor = anchor
        self.compactionMinimum = compactionMinimum
        logChain = [UInt8](repeating: 0, count: Self.macByteCount)
    }

    private var path: String { "\(stateDirectory)/\(Self.fileName)" }
    private var logPath: String { "\(stateDirectory)/\(Self.logFileName)" }

    /// The log size below which no compaction happens.
    package static let defaultCompactionMinimum = 1024

    /// An empty catalog (a new keybag's), not yet saved, with `usage` as the files' usage
    /// (`nil`: not known; an empty table: no file).
    package static func empty(
        stateDirectory: String, macKey: SecureBytes, anchor: RollbackAnchor, usage: UsageTable? = nil,
        compactionMinimum: Int = defaultCompactionMinimum
    ) -> GenerationLedger {
        let made = GenerationLedger(stateDirectory: stateDirectory, macKey: macKey, anchor: anchor, compactionMinimum: compactionMinimum)
        made.knownUsage = usage
        return made
    }

    /// Reads and verifies `STATE/catalog` (its head, its base's block table and its
    /// log; base blocks are verified when read); `nil` if there is none.
    package static func load(
        stateDirectory: String, macKey: SecureBytes, anchor: RollbackAnchor,
        compactionMinimum: Int = defaultCompactionMinimum
    ) throws(FileError) -> GenerationLedger? {
        let catalog = GenerationLedger(
            stateDirectory: stateDirectory, macKey: macKey, anchor: anchor, compactionMinimum: compactionMinimum)
        let path = catalog.path
        guard let bytes = try FileSystem.readFile(path, limit: TimelineFile.maximumFileBytes) else { return nil }
        guard bytes.count >= 5 + macByteCount else { throw .corrupt(file: path, reason: .truncated) }
        guard Array(bytes.prefix(4)) == magic else { throw .corrupt(file: path, reason: .badMagic) }
        let content = bytes.dropLast(macByteCount)
        let expected = try GenerationLedgerBase.mac([content], key: macKey)
        guard Sodium.constantTimeEquals(expected, bytes.suffix(macByteCount)) else {
            throw .corrupt(file: path, reason: .authenticationFailure)
        }
        switch content[4] {
        case 1:
            try catalog.readVersion1(Array(content), path: path)
            // Rewritten in this version's files now, so the next open reads no whole catalog.
            try catalog.save()
        case version:
            try catalog.readHead(Array(content), path: path)
        case versionWithUsage:
            let fixed = headByteCount - macByteCount
            guard content.count >= fixed, let usage = UsageTable.read(content[(content.startIndex + fixed)...]) else {
                throw .corrupt(file: path, reason: .malformed)
            }
            try catalog.readHead(Array(content.prefix(fixed)), path: path)
            catalog.knownUsage = usage
            catalog.headCarriesUsage = true
        default:
            throw .corrupt(file: path, reason: .unsupportedVersion)
        }
        try catalog.removeStaleBases()
        return catalog
    }

    /// The head's fields; opens the base it names and reads the log up to its chain.
    private func readHead(_ content: [UInt8], path: String) throws(FileError) {
        guard content.count == Self.headByteCount - Self.macByteCount else { throw .corrupt(file: path, reason: .malformed) }
        let (sequence, count, logLength, keybagAnchor, ledgerAnchor): (UInt64, UInt64, UInt64, UInt64, UInt64) =
            content.withUnsafeBytes { raw in
                (UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 5, as: UInt64.self)),
                 UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 13, as: UInt64.self)),
                 UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 53, as: UInt64.self)),
                 UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 93, as: UInt64.self)),
                 UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 101, as: UInt64.self)))
            }
        loadedAnchors = AnchorValues(keybag: keybagAnchor, catalog: ledgerAnchor)
        headAnchors = loadedAnchors
        let tableMAC = Array(content[21..<53])
        let chain = Array(content[61..<93])
        if sequence != 0 {
            guard let opened = try GenerationLedgerBase.open(stateDirectory: stateDirectory, sequence: sequence, macKey: macKey) else {
                throw .ledgerMissing(path: "\(stateDirectory)/\(GenerationLedgerBase.fileName(sequence))")
            }
            guard opened.count == count, Sodium.constantTimeEquals(opened.tableMAC, tableMAC[...]) else {
                throw .corrupt(file: opened.path, reason: .authenticationFailure)
            }
            base = opened
        } else {
            guard count == 0 else { throw .corrupt(file: path, reason: .malformed) }
        }
        guard logLength <= UInt64(TimelineFile.maximumFileBytes) else { throw .corrupt(file: path, reason: .malformed) }
        try readLog(bytes: Int(logLength), endingIn: chain)
    }

    /// The first `bytes` of the log, batch by batch, each chain verified, into `recent`.
    private func readLog(bytes length: Int, endingIn chain: [UInt8]) throws(FileError) {
        var chained = initialChain
        if length > 0 {
            guard let (fd, info) = try FileSystem.openFileWithStatus(logPath) else { throw .corrupt(file: logPath, reason: .truncated) }
            defer { Syscall.close(fd) }
            guard Int(info.st_size) >= length else { throw .corrupt(file: logPath, reason: .truncated) }
            var log = [UInt8](repeating: 0, count: length)
            guard try FileSystem.readAt(fd, into: &log, at: 0, path: logPath) == length else {
                throw .corrupt(file: logPath, reason: .truncated)
            }
            var offset = 0
            while offset < length {
                guard length - offset >= 4 + Self.macByteCount else { throw .corrupt(file: logPath, reason: .truncated) }
                let count = log.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
                let end = offset + 4 + count * GenerationLedgerBase.entryByteCount
                guard count > 0, end + Self.macByteCount <= length else { throw .corrupt(file: logPath, reason: .truncated) }
                let expected = try GenerationLedgerBase.mac([Self.logMagic[...], chained[...], log[offset..<end]], key: macKey)
                guard Sodium.constantTimeEquals(expected, log[end..<end + Self.macByteCount]) else {
                    throw .corrupt(file: logPath, reason: .authenticationFailure)
                }
                log.withUnsafeBytes { raw in
                    for i in 0..<count {
                        let at = offset + 4 + i * GenerationLedgerBase.entryByteCount
                        let key = GenerationLedgerBase.key(in: raw, at: at)
                        let value = GenerationLedgerBase.value(in: raw, at: at)
                        if recent[key].map({ $0 < value }) ?? true { recent[key] = value }
                    }
                }
                logEntries += count
                chained = expected
                offset = end + Self.macByteCount
            }
        }
        guard Sodium.constantTimeEquals(chained, chain[...]) else { throw .corrupt(file: logPath, reason: .authenticationFailure) }
        logBytes = length
        logChain = chained
    }

    /// What the log's first batch chains from: the base it follows (zeros for none).
    private var initialChain: [UInt8] { base?.tableMAC ?? [UInt8](repeating: 0, count: Self.macByteCount) }

    /// A version-1 catalog's entries (verified by the caller), all to be saved.
    private func readVersion1(_ content: [UInt8], path: String) throws(FileError) {
        guard content.count >= Self.version1HeaderByteCount else { throw .corrupt(file: path, reason: .truncated) }
        let count = content[5..<9].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard content.count == Self.version1HeaderByteCount + count * Self.version1EntryByteCount else {
            throw .corrupt(file: path, reason: .malformed)
        }
        recent.reserveCapacity(count)
        unsaved.reserveCapacity(count)
        let valid: Bool = content.withUnsafeBytes { raw in
            for index in 0..<count {
                let at = Self.version1HeaderByteCount + index * Self.version1EntryByteCount
                let key = GenerationLedgerBase.key(in: raw, at: at)
                let generation = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))
                let deleted = raw[at + 24]
                guard deleted <= 1, generation < 1 << 63 else { return false }
                recent[key] = generation << 1 | UInt64(deleted)
                unsaved[key] = generation << 1 | UInt64(deleted)
            }
            return true
        }
        guard valid else { throw .corrupt(file: path, reason: .malformed) }
    }

    // MARK: Lookups

    /// The value recorded for `key` (generation << 1 | deleted), the larger of the
    /// log's and the base's. Call holding `lock`.
    private func value(_ key: FileDigest) throws(FileError) -> UInt64? {
        let fromBase = try base?.lookup(key)
        guard let fromLog = recent[key] else { return fromBase }
        return max(fromLog, fromBase ?? 0)
    }

    private func locked<T>(_ body: () throws(FileError) -> T) throws(FileError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// What the catalog says of a file of `key` holding `generation`.
    package func verdict(_ key: FileDigest, generation: UInt64) throws(FileError) -> Verdict {
        guard let entry = try locked({ () throws(FileError) in try value(key) }) else { return .current }
        let recorded = entry >> 1
        if entry & 1 == 1 { return generation <= recorded ? .deleted : .current }
        return generation < recorded ? .rolledBack : .current
    }

    /// The latest generation recorded for `key`, deleted or not: a new write numbers
    /// itself above it, so that no file from before a deletion can pass for a later one.
    package func lastGeneration(_ key: FileDigest) throws(FileError) -> UInt64 {
        try locked { () throws(FileError) in try value(key).map { $0 >> 1 } ?? 0 }
    }

    /// Whether a file of `key` holding `generation` may be written over its file: not
    /// older than what is recorded (a journal restored from a backup must not replace
    /// newer files).
    package func admits(_ key: FileDigest, generation: UInt64) throws(FileError) -> Bool {
        try locked { () throws(FileError) in try value(key).map { generation >= $0 >> 1 } ?? true }
    }

    /// How many widgets have an entry (the base's and the log's, a widget in both
    /// counted twice): an upper bound of the stored timelines, deleted ones included.
    package var recordedCount: Int { lock.withLock { (base?.count ?? 0) + recent.count } }

    // MARK: Recording

    /// Records `value` for `key` unless a larger one is recorded since the last
    /// compaction (the base's is weighed at lookup). Call holding `lock`.
    private func raise(_ key: FileDigest, to value: UInt64) {
        if let known = recent[key], known >= value { return }
        recent[key] = value
        unsaved[key] = value
    }

    /// Records that `key`'s file now holds `generation` (never lowering what is recorded).
    package func record(_ key: FileDigest, generation: UInt64) {
        lock.withLock { raise(key, to: generation << 1) }
    }

    /// Records the generations of sealed files just written (their headers say them).
    package func record(files: [(key: FileDigest, bytes: [UInt8])]) {
        for file in files {
            if let generation = TimelineFile.generation(of: file.bytes) { record(file.key, generation: generation) }
        }
    }

    /// Records that `key`'s widget was deleted after its generation `generation` (or
    /// after the one recorded, if later).
    package func recordDeleted(_ key: FileDigest, generation: UInt64) throws(FileError) {
        try locked { () throws(FileError) in
            let last = max(generation, try value(key).map { $0 >> 1 } ?? 0)
            raise(key, to: last << 1 | 1)
        }
    }

    /// What memory holds for `key` (its log value and its unsaved one), for `restore`.
    package struct Entry {
        fileprivate let recent: UInt64?
        fileprivate let unsaved: UInt64?
    }

    /// What memory holds for `key` now.
    package func entry(_ key: FileDigest) -> Entry {
        lock.withLock { Entry(recent: recent[key], unsaved: unsaved[key]) }
    }

    /// Puts back what memory held for `key` (a change whose save failed: nothing of it
    /// may be carried by a later save). Call inside the change (`changeFiles`), which
    /// keeps every other change out meanwhile.
    package func restore(_ key: FileDigest, _ entry: Entry) {
        lock.withLock {
            recent[key] = entry.recent
            unsaved[key] = entry.unsaved
        }
    }

    // MARK: Saving

    /// Makes every record so far durable, carrying the last anchor (not anchored: a
    /// delete, a batch written straight into its files). See `saveRecords(carrying:)`.
    package func save() throws(FileError) {
        saveLock.lock()
        defer { saveLock.unlock() }
        try saveRecords(carrying: anchor.current)
        savedSinceAnchor = true
    }

    /// Makes every record so far durable, anchored to the rollback counter (a journal
    /// fold, an orderly stop): the head written carrying the counter's next value, then
    /// the counter incremented (`RollbackAnchor.anchor`).
    package func saveAnchored() throws(FileError) {
        saveLock.lock()
        defer { saveLock.unlock() }
        try anchoring { () throws(AnchoredSaveError<FileError>) in
            try anchor.anchor([.catalog]) { (values) throws(FileError) in try saveRecords(carrying: values) }
        }
        savedSinceAnchor = false
    }

    /// Makes every record so far durable in one anchored save with the keybag (`keybag`
    /// writes it carrying the same values): the anchoring of files that carried none,
    /// once running, while commit threads may save too.
    package func saveAnchored(withKeybag keybag: (AnchorValues) throws(FileError) -> Void) throws(FileError) {
        saveLock.lock()
        defer { saveLock.unlock() }
        try anchoring { () throws(AnchoredSaveError<FileError>) in
            try anchor.anchor([.keybag, .catalog]) { (values) throws(FileError) in
                try saveRecords(carrying: values)
                try keybag(values)
            }
        }
        savedSinceAnchor = false
    }

    /// An orderly stop's last save: every record so far, and the head carrying `usage`,
    /// which the store counted and knows to be exact with the files (nothing journaled,
    /// no write in flight): it replaces the table the changes kept, which may count too
    /// much. Anchored as `anchorIfSavedSince` would (if a save since the last anchor is
    /// not anchored yet and a counter anchors at all), else carrying the last anchor.
    package func save(usage: UsageTable) throws(FileError) {
        changeLock.lock()
        defer { changeLock.unlock() }
        lock.withLock { knownUsage = usage }
        saveLock.lock()
        defer { saveLock.unlock() }
        let pending = lock.withLock { unsaved.count > 0 }
        guard anchor.isAnchoring, savedSinceAnchor || pending else {
            try saveRecords(carrying: anchor.current)
            return
        }
        try anchoring { () throws(AnchoredSaveError<FileError>) in
            try anchor.anchor([.catalog]) { (values) throws(FileError) in try saveRecords(carrying: values) }
        }
        savedSinceAnchor = false
    }

    // MARK: Usage

    /// Each provider's usage by the timeline files as folded, or `nil` if not known.
    package var foldedUsage: UsageTable? { lock.withLock { knownUsage } }

    /// Runs `change`, which replaces or removes timeline files (and records what it
    /// wrote) and returns what that did to each provider's usage, then takes it into
    /// the table and runs `save`, which makes the records durable. Changes take turns.
    ///
    /// While `change` runs no head carries the table; with `withholding`, a head on
    /// disk that carries one is first rewritten without it (a change whose files are
    /// written before its save: a crash in between must not leave the old table beside
    /// them). A delete, whose record is saved before its file goes, needs none. A
    /// change that throws, or that it cannot judge, leaves the usage unknown.
    package func changeFiles(
        withholding: Bool, _ change: () throws(FileError) -> UsageChange, thenSave save: () throws(FileError) -> Void
    ) throws(FileError) {
        changeLock.lock()
        defer { changeLock.unlock() }
        let known = lock.withLock { () -> Bool in
            changing = knownUsage != nil
            return changing
        }
        if known, withholding {
            do throws(FileError) { try withholdUsage() } catch {
                lock.withLock { changing = false }
                throw error
            }
        }
        let made: UsageChange
        do throws(FileError) { made = try change() } catch {
            lock.withLock {
                knownUsage = nil
                changing = false
            }
            throw error
        }
        lock.withLock {
            knownUsage = knownUsage.flatMap { made.applied(to: $0) }
            changing = false
        }
        do throws(FileError) { try save() } catch {
            // The files may be as the change left them or not (a delete's stays until
            // its record is durable): the table no longer knows which.
            lock.withLock { knownUsage = nil }
            throw error
        }
    }

    /// Rewrites the head without the table (the same base, log and anchors), unless
    /// it carries none already.
    private func withholdUsage() throws(FileError) {
        saveLock.lock()
        defer { saveLock.unlock() }
        guard headCarriesUsage else { return }
        let base = lock.withLock { self.base }
        try writeHead(base: base, logBytes: logBytes, chain: logChain, anchors: headAnchors, usage: nil)
    }

    /// Saves anchored if a save since the last anchor is not anchored yet and a counter
    /// anchors at all (an orderly stop without a fold to do it).
    package func anchorIfSavedSince() throws(FileError) {
        guard anchor.isAnchoring, saveLock.withLock({ savedSinceAnchor }) else { return }
        try saveAnchored()
    }

    /// Makes every record so far durable carrying `values`, inside an anchored save of
    /// the keybag and the catalog together (a new store's, or one anchored at its first
    /// open: see `KeyCustody`), while nothing else saves it. It takes no `saveLock`: the
    /// caller holds the anchor's lock, which `saveAnchored` takes after `saveLock`.
    package func save(carrying values: AnchorValues) throws(FileError) {
        try saveRecords(carrying: values)
        savedSinceAnchor = false
    }

    /// Appends every record so far to the log and writes the head carrying `anchors`,
    /// or compacts when the log has grown past its share of the base. On failure the
    /// records stay to be saved by the next call. The caller holds `saveLock` (or is
    /// alone, see `save(carrying:)`).
    private func saveRecords(carrying anchors: AnchorValues) throws(FileError) {
        let (batch, usage): ([(FileDigest, UInt64)], UsageTable?) = lock.withLock {
            defer { unsaved = DigestTable() }
            return (Array(zip(unsaved.keys, unsaved.values)), changing ? nil : knownUsage)
        }
        do throws(FileError) {
            let baseCount = lock.withLock { base?.count ?? 0 }
            if logEntries + batch.count > max(compactionMinimum, baseCount / 32) {
                try compact(carrying: anchors, usage: usage)
            } else {
                try append(batch, carrying: anchors, usage: usage)
            }
        } catch {
            lock.withLock {
                for (key, value) in batch where unsaved[key].map({ $0 < value }) ?? true { unsaved[key] = value }
            }
            throw error
        }
    }

    /// Appends one batch to the log durably, then writes the head that counts it.
    private func append(_ batch: [(FileDigest, UInt64)], carrying anchors: AnchorValues, usage: UsageTable?) throws(FileError) {
        var chain = logChain
        var length = logBytes
        if !batch.isEmpty {
            var w = ByteWriter(reservingCapacity: 4 + batch.count * GenerationLedgerBase.entryByteCount + Self.macByteCount)
            w.u32(UInt32(batch.count))
            for (key, value) in batch { GenerationLedgerBase.appendEntry(key, value, to: &w) }
            chain = try GenerationLedgerBase.mac([Self.logMagic[...], logChain[...], w.bytes[...]], key: macKey)
            guard let fd = try FileSystem.openFile(logPath, flags: O_RDWR | O_CREAT) else {
                throw .io(operation: "open", path: logPath, errno: .noSuchFileOrDirectory)
            }
            defer { Syscall.close(fd) }
            try FileSystem.writeAt(fd, w.bytes + chain, at: logBytes, path: logPath)
            try FileSystem.call("fdatasync", logPath) { fdatasync(fd.rawValue) }
            length += w.bytes.count + Self.macByteCount
        }
        let base = lock.withLock { self.base }
        try writeHead(base: base, logBytes: length, chain: chain, anchors: anchors, usage: usage)
        logBytes = length
        logChain = chain
        logEntries += batch.count
    }

    /// Merges the base (its blocks verified as read) with everything recorded since
    /// into the next base, then writes the head naming it with an empty log.
    private func compact(carrying anchors: AnchorValues, usage: UsageTable?) throws(FileError) {
        let (old, snapshot): (GenerationLedgerBase?, [(FileDigest, UInt64)]) = lock.withLock {
            (base, Array(zip(recent.keys, recent.values)).sorted { $0.0 < $1.0 })
        }
        let sequence = (old?.sequence ?? 0) + 1
        var writer = try GenerationLedgerBase.Writer(stateDirectory: stateDirectory, sequence: sequence, macKey: macKey)
        let tableMAC: [UInt8]
        do throws(FileError) {
            try merge(old, snapshot) { (key, value) throws(FileError) in try writer.append(key, value) }
            tableMAC = try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
        // Opened as the next start will open it: its table read back and verified.
        let written = try GenerationLedgerBase.open(stateDirectory: stateDirectory, sequence: sequence, macKey: macKey)
        guard let opened = written, Sodium.constantTimeEquals(opened.tableMAC, tableMAC[...]) else {
            throw .corrupt(file: "\(stateDirectory)/\(GenerationLedgerBase.fileName(sequence))", reason: .authenticationFailure)
        }
        try writeHead(base: opened, logBytes: 0, chain: opened.tableMAC, anchors: anchors, usage: usage)
        lock.withLock {
            base = opened
            // What was recorded while this ran is newer than the snapshot: it stays.
            for (key, value) in snapshot where recent[key] == value { recent[key] = nil }
        }
        logBytes = 0
        logEntries = 0
        logChain = opened.tableMAC
        try removeStaleBases()
    }

    /// Calls `body` for each entry of the merge of `base` and `sorted`, in key order.
    private func merge(
        _ base: GenerationLedgerBase?, _ sorted: [(FileDigest, UInt64)],
        _ body: (FileDigest, UInt64) throws(FileError) -> Void
    ) throws(FileError) {
        var pending = sorted[...]
        if let base {
            for block in 0..<base.blocks {
                let bytes = try base.entries(inBlock: block)
                for i in 0..<(bytes.count / GenerationLedgerBase.entryByteCount) {
                    let (key, value) = bytes.withUnsafeBytes {
                        (GenerationLedgerBase.key(in: $0, at: i * GenerationLedgerBase.entryByteCount), GenerationLedgerBase.value(in: $0, at: i * GenerationLedgerBase.entryByteCount))
                    }
                    while let first = pending.first, first.0 < key {
                        try body(first.0, first.1)
                        pending.removeFirst()
                    }
                    if let first = pending.first, first.0 == key {
                        try body(key, max(value, first.1))
                        pending.removeFirst()
                    } else {
                        try body(key, value)
                    }
                }
            }
        }
        for (key, value) in pending { try body(key, value) }
    }

    /// Replaces the head atomically and durably: version 3 with `usage`, else version 2.
    private func writeHead(
        base: GenerationLedgerBase?, logBytes: Int, chain: [UInt8], anchors: AnchorValues, usage: UsageTable?
    ) throws(FileError) {
        var w = ByteWriter(reservingCapacity: Self.headByteCount)
        w.raw(Self.magic)
        w.u8(usage == nil ? Self.version : Self.versionWithUsage)
        w.u64(base?.sequence ?? 0)
        w.u64(UInt64(base?.count ?? 0))
        w.raw(base?.tableMAC ?? [UInt8](repeating: 0, count: Self.macByteCount))
        w.u64(UInt64(logBytes))
        w.raw(chain)
        w.u64(anchors.keybag)
        w.u64(anchors.catalog)
        usage?.write(to: &w)
        let mac = try GenerationLedgerBase.mac([w.bytes[...]], key: macKey)
        // Not known to carry a table until the new head is in place (a failure may leave either).
        headCarriesUsage = headCarriesUsage || usage != nil
        try FileSystem.writeAtomically(directory: stateDirectory, name: Self.fileName, bytes: w.bytes + mac)
        headCarriesUsage = usage != nil
        headAnchors = anchors
    }

    /// Removes the bases the head no longer names (a compaction's predecessor, or one a
    /// crash left before its head was written).
    private func removeStaleBases() throws(FileError) {
        let current = lock.withLock { base.map { GenerationLedgerBase.fileName($0.sequence) } }
        for name in try FileSystem.list(stateDirectory) where name.hasPrefix("catalog.base.") && name != current {
            try FileSystem.remove("\(stateDirectory)/\(name)")
        }
    }

    /// Removes every catalog file of `stateDirectory` (a wipe, once the head is gone).
    package static func removeFiles(stateDirectory: String) throws(FileError) {
        try FileSystem.remove("\(stateDirectory)/\(fileName)")
        try FileSystem.remove("\(stateDirectory)/\(logFileName)")
        for name in try FileSystem.list(stateDirectory) where name.hasPrefix("catalog.base.") {
            try FileSystem.remove("\(stateDirectory)/\(name)")
        }
    }
}
