// Target WidgetStore: the timelines, on top. Their face, for `TimelineStore` (the
// store's facade over the three targets below): `TimelineDirectory` (file names, the
// index filled in slices, placeholders, and a file's verification: `readSealed`,
// `record`, `recordAbsent`, `forget`, `indexNext`, `nextDue`, the quotas' `usage`),
// the index (`TimelineIndex`, over `WidgetTable`) with the views kept in step with it
// (`ProviderUsageTally`, `UsageSinceOpen`, `KeyGenerationTally`, `NextReloadDue`), the caches
// (`PlaintextCache`, `PlaceholderCache`), `ProviderQuota`, and one `OpenReport` per open.
// Reads, puts, deletes and pages go through `TimelineStore` and `WritePipeline`.
// It uses StoreKeys only through `KeyCustody`'s face (subkeys and the key pair of a
// class and generation), and StoreLedger through its face.
// It throws `StoreError`, the store's own, and calls the other parts through
// `fromFiles { }` / `fromKeys { }`, which map their errors onto it.

import FoundationEssentials
import StoreFiles
import StoreKeys
import StoreLedger
import WidgetCrypto
import WidgetModel

/// What the store knows of its timeline files: the file name of each widget, the
/// metadata index and the placeholder cache, and the verification that puts a file's
/// verdict into them (present with its metadata, absent, or corrupt).
///
/// The store owns its directory, so what is recorded stays true until restart; it
/// spares listing, reloads and presentations an X25519 operation per file per call.
/// Compact (about 20 bytes per file for ids that share a prefix): placeholders are read back
/// from the verified file when needed. Reads go to the journal first: a write durable
/// there and not folded yet is the file's current content.
///
/// The authenticated catalog (`ledger`, a `GenerationLedger`) has the last word on a
/// file read from disk: a deleted widget's file reads as absent; a file older than its
/// recorded generation verifies (its metadata and placeholder are served) but its body
/// is refused.
///
/// Threading: single-threaded, on the store's thread.
final class TimelineDirectory {
    /// The timelines directory.
    let path: String
    /// Its subkeys (file names, metadata) and class D; the same custody across a wipe.
    private let custody: KeyCustody
    /// Where writes land first; pending records are read before the files.
    var journal: Journal?
    /// Told of each entry that indexing refused to open, and of a rebuilt catalog
    /// (`TimelineStore.reporter`).
    weak var reporter: (any StoreEventReporter)?
    /// Each widget's latest generation and deletion, authenticated (replaced at a wipe).
    var ledger: GenerationLedger

    /// What each file holds, as verified from disk (or just written), or that it is
    /// absent or failed verification.
    private(set) var index = TimelineIndex()
    /// Recent placeholders, which the index does not keep.
    private(set) var placeholders = PlaceholderCache()
    /// Whether `index` covers every file in the directory.
    private(set) var isComplete = false
    /// The directory being read for the index, from its first need until its end.
    private var scan: DirectoryStream?
    /// Whether the scan is reading a file: what it records needs no marker (see
    /// `TimelineIndex.record`), since the scan meets each name once.
    private var scanning = false
    /// Temporary files the reading found (see `removeLeftovers`).
    private var leftovers: [String] = []
    /// Whether a batch of writes is in flight (set by the store).
    var writesInFlight: () -> Bool = { false }

    init(path: String, custody: KeyCustody, ledger: GenerationLedger) {
        self.path = path
        self.custody = custody
        self.ledger = ledger
    }

    /// Forgets everything (a wipe). `empty`: the directory is now empty, so the empty
    /// index covers it and lookups of widgets never stored since leave nothing behind.
    func removeAll(empty: Bool) {
        index.removeAll()
        placeholders.removeAll()
        isComplete = empty
        forgotAfterFailure = false
        scan = nil
        leftovers = []
    }

    /// Forgets the cached placeholders (for tests of reading them back from the files).
    func forgetCachedPlaceholders() { placeholders.removeAll() }

    // MARK: Names

    /// The file name for a widget: a keyed hash of its id, never the id itself, so a
    /// hostile id cannot name a path and a directory listing reveals no widget.
    func fileName(for widget: WidgetID) throws(StoreError) -> String {
        try indexKey(for: widget).fileName
    }

    /// The index key of a widget's file: the digest its file name spells.
    func indexKey(for widget: WidgetID) throws(StoreError) -> FileDigest {
        try SealedFileReader.indexKey(for: widget, fileNameKey: custody.subkeys.fileName)
    }

    /// How a file is read and verified, on this thread or, while it waits, on others
    /// (`SealedFileReader`); made anew for each use, since a wipe changes the subkeys.
    var reader: SealedFileReader {
        SealedFileReader(
            directory: path, journal: journal, ledger: ledger, fileNameKey: custody.subkeys.fileName,
            metadataKey: custody.subkeys.timelineMetadata, classD: custody.keyPair(.none, generation: Keybag.classDGeneration)!)
    }

    // MARK: Verification

    /// Reads, parses and verifies a timeline file's header and metadata; also returns
    /// the file's size. `expected` nil accepts any widget whose own file name is `name`.
    func readSealed(name: String, expected: WidgetID?) throws(StoreError) -> (TimelineFile.Sealed, TimelineMetadata, fileBytes: Int)? {
        try reader.readSealed(name: name, expected: expected)
    }

    /// The metadata for one file name, with its placeholder, from the index or verified
    /// from disk. The placeholder comes from `placeholders` or the verified file.
    func indexedMetadata(name: String, widget: WidgetID?, includingPlaceholder: Bool = true) throws(StoreError) -> TimelineMetadata? {
        // Every name the store makes parses; any other file is no widget's.
        guard let key = FileDigest(fileName: name) else { return nil }
        return try indexedMetadata(key: key, widget: widget, includingPlaceholder: includingPlaceholder)
    }

    /// `indexedMetadata(name:widget:includingPlaceholder:)` for the file of `key`: its
    /// name is spelled only when the file is read (an answer from the index, the common
    /// one, spells and parses none). Without `widget`, only a verdict the index keeps by
    /// digest is known (the scan's question, before it reads the file).
    func indexedMetadata(key: FileDigest, widget: WidgetID?, includingPlaceholder: Bool = true) throws(StoreError) -> TimelineMetadata? {
        switch index.verdict(key, widget: widget) {
        case .present(let summary):
            guard summary.hasPlaceholder, includingPlaceholder else { return TimelineMetadata(summary, placeholder: nil) }
            if let placeholder = placeholders.placeholder(key, generation: summary.generation) {
                return TimelineMetadata(summary, placeholder: placeholder)
            }
            return try verify(name: key.fileName, key: key, widget: summary.widget)
        case .absent:
            return nil
        case .corrupt(let reason):
            throw .corrupt(file: "\(self.path)/\(key.fileName)", reason: reason)
        case nil:
            if isComplete { return nil }
            return try verify(name: key.fileName, key: key, widget: widget)
        }
    }

    /// Reads and verifies one file and records the verdict in the index: its metadata,
    /// its absence, or its corruption (thrown too). An I/O error is thrown and not
    /// recorded: it may pass.
    @discardableResult
    func verify(name: String, key: FileDigest, widget: WidgetID?) throws(StoreError) -> TimelineMetadata? {
        do throws(StoreError) {
            guard let (_, metadata, fileBytes) = try readSealed(name: name, expected: widget) else {
                recordAbsent(key, widget: widget)
                return nil
            }
            index.record(key, metadata, fileBytes: fileBytes, marked: !isComplete && !scanning)
            placeholders.set(key, metadata.placeholder, generation: metadata.generation)
            return metadata
        } catch {
            // Only the file's own verdict is recorded: a catalog block that fails its MAC
            // is thrown (the read fails closed) but asked again next time.
            guard case .corrupt(let file, let reason) = error, file == "\(self.path)/\(name)" else { throw error }
            index.recordCorrupt(key, widget: widget, reason)
            placeholders.remove(key)
            throw error
        }
    }

    /// After a failed write (a full disk): the previous file is still in place, or the
    /// new one if only the directory sync failed. Index whichever is there; dropping
    /// the entry instead would report the widget missing once the index is complete,
    /// while its file is intact on disk (CrashSafetyTests).
    func reindexFromDisk(_ key: FileDigest, widget: WidgetID) {
        do throws(StoreError) {
            try verify(name: key.fileName, key: key, widget: widget)
        } catch {
            // A verdict on the file is recorded by `verify`; an I/O error may pass.
            if case .corrupt = error { return }
            forget(key, widget: widget)
            // Its share is not known now: neither is its provider's usage, until the
            // index is complete (counted as none, it could let a provider past its quota).
            index.forgetUsageSinceOpen()
            forgotAfterFailure = true
        }
    }

    // MARK: Recording

    /// Records metadata just written to the file of `key`, `fileBytes` long.
    func record(_ key: FileDigest, _ metadata: TimelineMetadata, fileBytes: Int) {
        index.record(key, metadata, fileBytes: fileBytes, marked: !isComplete)
        placeholders.set(key, metadata.placeholder, generation: metadata.generation)
    }

    /// Throws `rolledBack` if a file of `key` holding `generation` is older than the
    /// catalog's record: its body must not be served.
    func refuseIfRolledBack(_ key: FileDigest, generation: UInt64, file: String) throws(StoreError) {
        try reader.refuseIfRolledBack(key, generation: generation, file: file)
    }

    /// Records a placeholder just verified with a body.
    func setPlaceholder(_ key: FileDigest, _ placeholder: [UInt8]?, generation: UInt64) {
        placeholders.set(key, placeholder, generation: generation)
    }

    /// Forgets what the index knows of `widget`'s file of `key`: the next question reads the disk.
    func forget(_ key: FileDigest, widget: WidgetID) {
        index.forget(key, widget: widget)
        placeholders.remove(key)
    }

    /// Records that no file `key` (of `widget`, if known) exists. Once the index covers
    /// every file, absence is implied, so nothing is kept for it.
    func recordAbsent(_ key: FileDigest, widget: WidgetID?) {
        if isComplete { index.forget(key, widget: widget) } else { index.recordAbsent(key, widget: widget) }
        placeholders.remove(key)
    }

    // MARK: Usage

    /// Starts from the usage table the catalog's head carried, which describes the files
    /// as this open left them (its replay folded): the quotas are judged by it, and
    /// the files writes and deletes touch, until the index is complete.
    func startUsage(from table: UsageTable) {
        guard !isComplete else { return }
        index.startUsage(from: table)
    }

    /// What `provider`'s files take, for its quota: by the index once complete, else by
    /// the usage the catalog gave at open and the files touched since; `nil` if not known.
    func usage(of provider: String) -> ProviderUsage? {
        isComplete ? index.usage(of: provider) : index.usageSinceOpen(of: provider)
    }

    /// Whether every provider's usage is known (see `usage(of:)`).
    var isUsageKnown: Bool { isComplete || index.hasUsageSinceOpen }

    /// Every provider's usage, exact with the files, for an orderly stop to leave in the
    /// catalog; `nil` if it is not known.
    var usageTable: UsageTable? {
        guard !forgotAfterFailure else { return nil }
        return isComplete ? index.usageTable : index.usageTableSinceOpen
    }

    /// Whether a file was forgotten after a failed write (its share unknown) since the
    /// index started: the usage then is not exact enough to leave for the next start.
    private var forgotAfterFailure = false

    /// Notes that a write or a delete is about to change the file of `key` (of `widget`): its
    /// share before is read from the disk first if the index has no verdict yet, so
    /// that the usage since the open takes off what the open's table counted for it.
    func touch(_ key: FileDigest, widget: WidgetID) {
        guard !isComplete, index.hasUsageSinceOpen else { return }
        // A file that fails verification counts for nobody, as the index counts it; one
        // that cannot be read is counted as the open's table did, never less.
        if index.verdict(key, widget: widget) == nil {
            _ = try? indexedMetadata(key: key, widget: widget, includingPlaceholder: false)
        }
        index.touch(key, widget: widget)
    }

    /// Records that `widget`'s current generation's due reload was announced.
    func markAnnounced(_ widget: WidgetID) { index.markAnnounced(widget) }

    /// The earliest unannounced reload due after `now` (see `TimelineIndex.nextDue`).
    func nextDue(after now: Date) -> Date? { index.nextDue(after: now) }

    // MARK: Indexing

    /// Verifies up to `limit` more stored files into the index and returns the metadata
    /// found among them, or `nil` once every file is indexed (see
    /// `TimelineStore.indexNextTimelines`). The directory is read as it goes, a slice's
    /// worth of names at a time, never listed whole.
    func indexNext(limit: Int) throws(StoreError) -> [TimelineMetadata]? {
        guard !isComplete else { return nil }
        if scan == nil {
            scan = try fromFiles { () throws(FileError) in try DirectoryStream(self.path) }
        }
        var found: [TimelineMetadata] = []
        var verified = 0
        while verified < limit {
            guard let name = try fromFiles({ () throws(FileError) in try scan?.next() }) else {
                scan = nil
                isComplete = true
                // Its own tally is exact now, and answers the quotas.
                index.forgetUsageSinceOpen()
                // Absence is implied from now on: what was recorded of it goes.
                index.removeAbsent()
                try removeLeftovers()
                return found
            }
            if name.hasPrefix(".tmp-") {
                leftovers.append(name)
                continue
            }
            guard let key = FileDigest(fileName: name) else { continue }
            verified += 1
            // Files recorded outside the scan are marked; the scan meets each name once.
            guard !index.isMarked(key) else { continue }
            scanning = true
            defer { scanning = false }
            do throws(StoreError) {
                if let metadata = try indexedMetadata(name: name, widget: nil) { found.append(metadata) }
            } catch {
                // A damaged file is recorded in the index and skipped; a planted entry (a
                // FIFO, a link, another user's file) is reported and skipped, unread, and
                // reads as absent; anything else is a real failure.
                switch error {
                case .corrupt: break
                case .unsafeEntry: reporter?.entryRefused(error)
                default: throw error
                }
            }
        }
        return found
    }

    /// Removes the temporary files the reading found, unless a write is in flight (a
    /// group commit writes its files beside the loop): then they stay for the next
    /// start's reading. Every write of this store renames or removes its own temporary
    /// file before it finishes, so with none in flight any found is a leftover.
    private func removeLeftovers() throws(StoreError) {
        guard !writesInFlight() else { return }
        for name in leftovers { try fromFiles { () throws(FileError) in try FileSystem.remove("\(self.path)/\(name)") } }
        leftovers = []
    }

    /// Indexes every file not indexed yet.
    func indexAll() throws(StoreError) {
        while try indexNext(limit: .max) != nil {}
    }
}
