import FoundationEssentials
import WidgetCrypto

/// The authenticated catalog (`STATE/catalog`, DESIGN §9): each widget's latest
/// generation and each deletion, under a device-key MAC, so that a single timeline file
/// restored from a backup is refused as rolled back, and a deleted widget's file that
/// reappears is ignored.
///
/// ```
/// "WCAT" | version u8 (2) | keybag anchor u64 | catalog anchor u64 | count u32 | per widget,
///        by file-name digest: digest (16) | generation u64 | deleted u8 || MAC (32): keyed
///        BLAKE2b of all before it
/// ```
///
/// The anchors are the rollback counter's values (`RollbackAnchor`, zero in software
/// mode); version 1, without them, is still read (as not anchored).
///
/// Kept durable with the journal: a fold records the generations it writes into the
/// files and saves the catalog (after the files, before the journal is emptied), a
/// delete saves it before it removes the file, and without a journal each batch of
/// direct writes saves it after its files. Between two folds the journal's records are
/// the newest truth and the catalog lags; a generation only ever goes up in it
/// (`record`), so a journal restored from a backup cannot lower it either.
///
/// A new keybag is made with an empty catalog beside it, before the keybag is
/// written, so a keybag without its catalog is a start error (`catalogMissing`): the
/// catalog removed to allow a rollback. A store of the previous version (keybag
/// version 1) gets its catalog from the generations its files hold at that open.
///
/// What it cannot see by itself: the catalog restored together with its files (a whole
/// state-directory rollback). A counter outside the directory (a TPM's NV counter,
/// `RollbackCounter`) tells that catalog is old: a fold and an orderly stop save it
/// anchored (`saveAnchored`); the saves in between carry the last anchor.
///
/// Threading: every method may run on any thread (a fold runs beside the store's
/// thread); a lock guards the entries, another serialises saves.
final class Catalog: @unchecked Sendable {
    static let fileName = "catalog"
    private static let magic = Array("WCAT".utf8)
    private static let version: UInt8 = 2
    /// The version before rollback anchors, still read.
    private static let version1: UInt8 = 1
    private static let macByteCount = 32
    private static let entryByteCount = 16 + 8 + 1
    private static let headerByteCount = 4 + 1 + 16 + 4
    private static let version1HeaderByteCount = 4 + 1 + 4

    /// What the catalog says of one file as found on disk.
    enum Verdict: Equatable {
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
    /// The anchors the file carried when it was loaded (`none` for a new catalog).
    private(set) var loadedAnchors = AnchorValues.none
    /// Whether a save since the last anchored one left changes the counter does not
    /// anchor yet (guarded by `saveLock`).
    private var savedSinceAnchor = false
    private let lock = ThreadLock()
    /// Serialises saves (a fold on a commit thread, a delete on the store's): each takes
    /// its snapshot and writes it under this lock, so the last file written holds every
    /// record made before the last save began.
    private let saveLock = ThreadLock()
    /// Per file-name digest: generation << 1 | deleted.
    private var entries = DigestTable<UInt64>()

    private init(stateDirectory: String, macKey: SecureBytes, anchor: RollbackAnchor) {
        self.stateDirectory = stateDirectory
        self.macKey = macKey
        self.anchor = anchor
    }

    private var path: String { "\(stateDirectory)/\(Self.fileName)" }

    /// An empty catalog (a new keybag's), not yet saved.
    static func empty(stateDirectory: String, macKey: SecureBytes, anchor: RollbackAnchor) -> Catalog {
        Catalog(stateDirectory: stateDirectory, macKey: macKey, anchor: anchor)
    }

    /// Reads and verifies `STATE/catalog`; `nil` if there is none.
    static func load(stateDirectory: String, macKey: SecureBytes, anchor: RollbackAnchor) throws(StoreError) -> Catalog? {
        let catalog = Catalog(stateDirectory: stateDirectory, macKey: macKey, anchor: anchor)
        let path = catalog.path
        guard let bytes = try FileSystem.readFile(path, limit: TimelineFile.maximumFileBytes) else { return nil }
        guard bytes.count >= version1HeaderByteCount + macByteCount else { throw .corrupt(file: path, reason: .truncated) }
        guard Array(bytes.prefix(4)) == magic else { throw .corrupt(file: path, reason: .badMagic) }
        let content = Array(bytes.dropLast(macByteCount))
        let expected = try mac(content, key: macKey)
        let stored = Array(bytes.suffix(macByteCount))
        guard expected.withUnsafeBytes({ e in stored.withUnsafeBytes { Sodium.constantTimeEquals(e, $0) } }) else {
            throw .corrupt(file: path, reason: .authenticationFailure)
        }
        let headerByteCount: Int
        switch content[4] {
        case version:
            guard content.count >= Self.headerByteCount else { throw .corrupt(file: path, reason: .truncated) }
            headerByteCount = Self.headerByteCount
            catalog.loadedAnchors = AnchorValues(keybag: littleEndian(content, at: 5), catalog: littleEndian(content, at: 13))
        case version1: headerByteCount = version1HeaderByteCount
        default: throw .corrupt(file: path, reason: .unsupportedVersion)
        }
        let count = content[headerByteCount - 4..<headerByteCount].reversed().reduce(0) { $0 << 8 | Int($1) }
        guard content.count == headerByteCount + count * entryByteCount else { throw .corrupt(file: path, reason: .malformed) }
        catalog.entries.reserveCapacity(count)
        // Read in place, without an array per entry: a catalog holds every widget, and
        // it is read before the daemon is ready.
        let valid: Bool = content.withUnsafeBytes { raw in
            for index in 0..<count {
                let at = headerByteCount + index * entryByteCount
                let key = TimelineIndex.Key(
                    high: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                    low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
                let generation = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self))
                let deleted = raw[at + 24]
                guard deleted <= 1, generation < 1 << 63 else { return false }
                catalog.entries[key] = generation << 1 | UInt64(deleted)
            }
            return true
        }
        guard valid else { throw .corrupt(file: path, reason: .malformed) }
        return catalog
    }

    /// What the catalog says of a file of `key` holding `generation`.
    func verdict(_ key: TimelineIndex.Key, generation: UInt64) -> Verdict {
        guard let entry = lock.withLock({ entries[key] }) else { return .current }
        let recorded = entry >> 1
        if entry & 1 == 1 { return generation <= recorded ? .deleted : .current }
        return generation < recorded ? .rolledBack : .current
    }

    /// The latest generation recorded for `key`, deleted or not: a new write numbers
    /// itself above it, so that no file from before a deletion can pass for a later one.
    func lastGeneration(_ key: TimelineIndex.Key) -> UInt64 {
        lock.withLock { entries[key].map { $0 >> 1 } ?? 0 }
    }

    /// Whether a file of `key` holding `generation` may be written over its file: not
    /// older than what is recorded (a journal restored from a backup must not replace
    /// newer files).
    func admits(_ key: TimelineIndex.Key, generation: UInt64) -> Bool {
        lock.withLock { entries[key].map { generation >= $0 >> 1 } ?? true }
    }

    /// Records that `key`'s file now holds `generation` (never lowering what is recorded).
    func record(_ key: TimelineIndex.Key, generation: UInt64) {
        lock.withLock {
            if let entry = entries[key], entry >> 1 > generation { return }
            entries[key] = generation << 1
        }
    }

    /// Records the generations of sealed files just written (their headers say them).
    func record(files: [(key: TimelineIndex.Key, bytes: [UInt8])]) {
        for file in files {
            if let generation = TimelineFile.generation(of: file.bytes) { record(file.key, generation: generation) }
        }
    }

    /// Records that `key`'s widget was deleted after its generation `generation`.
    func recordDeleted(_ key: TimelineIndex.Key, generation: UInt64) {
        lock.withLock {
            let last = max(generation, entries[key].map { $0 >> 1 } ?? 0)
            entries[key] = last << 1 | 1
        }
    }

    /// Replaces `STATE/catalog` atomically and durably, carrying the last anchor (not
    /// anchored: a delete, a batch written straight into its files).
    func save() throws(StoreError) {
        saveLock.lock()
        defer { saveLock.unlock() }
        try write(carrying: anchor.current)
        savedSinceAnchor = true
    }

    /// Replaces `STATE/catalog` atomically and durably, anchored to the rollback counter
    /// (a journal fold, an orderly stop): written carrying its next value, then the
    /// counter incremented (`RollbackAnchor.anchor`).
    func saveAnchored() throws(StoreError) {
        saveLock.lock()
        defer { saveLock.unlock() }
        try anchor.anchor([.catalog]) { (values) throws(StoreError) in try write(carrying: values) }
        savedSinceAnchor = false
    }

    /// Saves anchored if a save since the last anchor is not anchored yet and a counter
    /// anchors at all (an orderly stop without a fold to do it).
    func anchorIfSavedSince() throws(StoreError) {
        guard anchor.isAnchoring, saveLock.withLock({ savedSinceAnchor }) else { return }
        try saveAnchored()
    }

    /// Replaces `STATE/catalog` carrying `values`, inside an anchored save of the keybag
    /// and the catalog together (a new store's, or one anchored at its first open: see
    /// `KeyCustody`), while nothing else saves it. It takes no `saveLock`: the caller
    /// holds the anchor's lock, which `saveAnchored` takes after `saveLock`.
    func save(carrying values: AnchorValues) throws(StoreError) {
        try write(carrying: values)
        savedSinceAnchor = false
    }

    /// Writes the file; the caller holds `saveLock` (or is alone, see `save(carrying:)`).
    private func write(carrying values: AnchorValues) throws(StoreError) {
        let content: [UInt8] = lock.withLock {
            var w = ByteWriter()
            w.raw(Self.magic)
            w.u8(Self.version)
            w.u64(values.keybag)
            w.u64(values.catalog)
            w.u32(UInt32(entries.count))
            for (key, entry) in zip(entries.keys, entries.values) {
                withUnsafeBytes(of: key.high.bigEndian) { w.raw($0) }
                withUnsafeBytes(of: key.low.bigEndian) { w.raw($0) }
                w.u64(entry >> 1)
                w.u8(UInt8(entry & 1))
            }
            return w.bytes
        }
        let mac = try Self.mac(content, key: macKey)
        try FileSystem.writeAtomically(directory: stateDirectory, name: Self.fileName, bytes: content + mac)
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func mac(_ content: [UInt8], key: SecureBytes) throws(StoreError) -> [UInt8] {
        let mac = try crypto { () throws(CryptoError) in try KeyedHash.hash(content, key: key, outputLength: macByteCount) }
        return mac.withUnsafeBytes { Array($0) }
    }
}

extension TimelineIndex.Key {
    /// The key of a digest given as its two big-endian halves.
    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }
}
