import FoundationEssentials
import Glibc
import SecureMemory
import WidgetCrypto
import WidgetdPOSIX

/// The write-ahead journal (`STATE/journal`): where a durable write first lands.
///
/// A write's sealed timeline file (the very bytes its `.wtl` file will hold) is
/// appended to this preallocated file and made durable with one `fdatasync` per batch,
/// in place: no new inode, no `rename`, no directory `fsync` on the write's path. The
/// files are brought up to date later, all at once (`fold`): when the journal is full,
/// before a delete or a wipe, at an orderly stop, and at open after a crash. Until then
/// `pending(_:)` serves the newest journaled bytes of a file in its place. A fold writes
/// each file once however many times it was journaled, as a database's checkpoint does.
///
/// ```
/// record   "WDJR" | epoch (8) | sequence u64 | file-name digest (16) | length u32 | sealed file | MAC (16)
/// ```
///
/// The MAC is a keyed BLAKE2b of everything before it, under a device subkey. Every
/// fold starts a new random epoch with sequence 0, so records left over from an earlier
/// epoch beyond the new ones never read as current. Reading stops at the first record
/// that does not verify or does not follow in sequence: a write torn by a crash was
/// never acknowledged, so what follows it was not either. What is journaled is what the
/// file would hold — sealed, never plaintext — so the journal adds nothing to read while
/// locked. A fold writes the files durably before it empties the journal (zeroes the
/// first record's header and syncs), so a crash at any point replays at worst records
/// whose files are already written: the same bytes again.
///
/// A fold also keeps the catalog (`GenerationLedger`) durable: it writes no record older than
/// the generation the catalog holds for its file (a journal restored from a backup
/// must not replace newer files), and saves the generations it wrote after the files
/// and before the journal is emptied, anchored to the rollback counter when there is
/// one (`GenerationLedger.saveAnchored`): one counter increment per fold, none per write.
/// It keeps the catalog's usage table with the files too (`GenerationLedger.changeFiles`):
/// each file it replaces is judged as it was before (`UsageChange.removing`), each
/// record it writes counted, so that a start after a crash, once its replay is folded,
/// knows every provider's usage.
///
/// Threading: `append`, `fold` and `discard` may run on any thread and take turns;
/// `pending` may run beside them. One journal per state directory at a time: a second
/// one opened on it folds and empties it under the first (`StateDirectoryLock` keeps a
/// second daemon out; a store reopened in a test while the first lives is a restart
/// after a crash of the first, which then must not write again).
final class Journal: @unchecked Sendable {
    static let fileName = "journal"
    /// The default size of the preallocated file.
    static let defaultCapacity = 4 << 20

    private static let magic: [UInt8] = Array("WDJR".utf8)
    private static let headerByteCount = 4 + 8 + 8 + 16 + 4
    private static let macByteCount = 16
    /// What a record adds to the file it carries.
    static let overhead = headerByteCount + macByteCount

    private let path: String
    private let stateDirectory: String
    /// Where the timeline files are folded to.
    private let directory: String
    private let capacity: Int
    private let macKey: SecureBytes
    private let fd: FileDescriptor
    /// The generations the folds record.
    private let ledger: GenerationLedger
    /// Opens the metadata of a file a fold replaces, to judge whether it counted.
    private let metadataKey: SecureBytes

    /// Serialises `append`, `fold` and `discard`; guards `tail`, `epoch` and `sequence`.
    private let writeLock = ThreadLock()
    private var tail = 0
    private var epoch: [UInt8]
    private var sequence: UInt64 = 0

    /// Guards `files`, which `pending` reads beside a running append or fold.
    private let filesLock = ThreadLock()
    /// The newest journaled bytes of each file not folded yet.
    private var files: [FileDigest: [UInt8]] = [:]

    /// How many records the open replayed (they were folded into their files at once).
    let recoveredRecords: Int

    /// Opens (creating and preallocating it if needed) `stateDirectory/journal`, and
    /// folds any records a crash left in it into `timelinesDirectory`.
    init(
        stateDirectory: String, timelinesDirectory: String, capacity: Int = Journal.defaultCapacity, macKey: SecureBytes,
        metadataKey: SecureBytes, ledger: GenerationLedger
    ) throws(LedgerError) {
        precondition(capacity > Self.overhead, "a journal must hold at least one record")
        let path = "\(stateDirectory)/\(Self.fileName)"
        // Created if absent; an existing one must be a regular file of ours (`openFile`).
        guard let fd = try FileSystem.openFile(path, flags: O_RDWR | O_CREAT) else {
            throw .io(operation: "open", path: path, errno: .noSuchFileOrDirectory)
        }
        let replayed: [Record]
        do throws(LedgerError) {
            replayed = try Self.read(fd: fd, path: path, macKey: macKey)
            epoch = try Self.newEpoch()
        } catch {
            Syscall.close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
        self.stateDirectory = stateDirectory
        self.directory = timelinesDirectory
        self.capacity = capacity
        self.macKey = macKey
        self.ledger = ledger
        self.metadataKey = metadataKey
        recoveredRecords = replayed.count
        for record in replayed { files[record.key] = record.bytes }
        if !files.isEmpty { try fold() }
        try preallocate()
    }

    deinit { Syscall.close(fd) }

    /// Whether `stateDirectory/journal` holds a record (its first header starts with
    /// the magic), without a key: acknowledged writes that a lost keybag would make
    /// unreadable (`TimelineStore`'s start check). Read as `FileSystem.openFile` says.
    static func holdsRecords(stateDirectory: String) throws(LedgerError) -> Bool {
        let path = "\(stateDirectory)/\(fileName)"
        guard let fd = try FileSystem.openFile(path) else { return false }
        defer { Syscall.close(fd) }
        var first = [UInt8](repeating: 0, count: magic.count)
        return try FileSystem.readAt(fd, into: &first, at: 0, path: path) == magic.count && first == magic
    }

    /// The newest journaled bytes of the file `key` names, or `nil` if its file is current.
    func pending(_ key: FileDigest) -> [UInt8]? {
        filesLock.withLock { files[key] }
    }

    /// Whether files of these sizes would be appended without a fold first: a caller
    /// that must not wait for a fold (the event loop) hands the others to a worker.
    func fitsWithoutFold(fileBytes: [Int]) -> Bool {
        let size = fileBytes.reduce(0) { $0 + Self.overhead + $1 }
        writeLock.lock()
        defer { writeLock.unlock() }
        return tail + size <= capacity
    }

    /// Appends a batch of sealed files durably (one write and one `fdatasync`), folding
    /// first if they do not fit in what is left. Returns `false`, having written
    /// nothing, when the batch does not fit even in an empty journal: the caller writes
    /// those files directly (after `fold`, so no older record of theirs can replay).
    /// On failure nothing of the batch counts as written; a later append overwrites it.
    func append(_ batch: [(key: FileDigest, bytes: [UInt8])]) throws(LedgerError) -> Bool {
        let size = batch.reduce(0) { $0 + Self.overhead + $1.bytes.count }
        guard size <= capacity else { return false }
        return try serialized { () throws(LedgerError) -> Bool in
            if tail + size > capacity { try foldLocked() }
            var records: [UInt8] = []
            records.reserveCapacity(size)
            var next = sequence
            for file in batch {
                try appendRecord(file.key, file.bytes, sequence: next, to: &records)
                next += 1
            }
            try records.withBytes { (buffer) throws(LedgerError) in try FileSystem.writeAt(fd, buffer, at: tail, path: path) }
            try FileSystem.call("fdatasync", path) { fdatasync(fd.rawValue) }
            tail += size
            sequence = next
            filesLock.withLock {
                for file in batch { files[file.key] = file.bytes }
            }
            return true
        }
    }

    /// Writes every journaled file into place (each once, its newest bytes), durably,
    /// then empties the journal durably. On failure the journal is kept as it was.
    func fold() throws(LedgerError) {
        try serialized { () throws(LedgerError) in try foldLocked() }
    }

    /// Empties the journal durably without writing its files (a wipe: they are going).
    func discard() throws(LedgerError) {
        try serialized { () throws(LedgerError) in
            try restart()
            filesLock.withLock { files.removeAll() }
        }
    }

    /// Runs `body` holding `writeLock`.
    private func serialized<T>(_ body: () throws(LedgerError) -> T) throws(LedgerError) -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        return try body()
    }

    private func foldLocked() throws(LedgerError) {
        let snapshot = filesLock.withLock { files }
        guard !snapshot.isEmpty else { return }
        var admitted: [(key: FileDigest, value: [UInt8])] = []
        for (key, bytes) in snapshot where try ledger.admits(key, generation: TimelineFile.generation(of: bytes) ?? 0) {
            admitted.append((key, bytes))
        }
        let all = admitted.map { (name: $0.key.fileName, bytes: $0.value) }
        let (directory, ledger, metadataKey) = (directory, ledger, metadataKey)
        try ledger.changeFiles(withholding: true, { () throws(LedgerError) -> UsageChange in
            var change = UsageChange()
            for (key, bytes) in admitted {
                guard let sealed = try? TimelineFile.parse(bytes, expected: nil, file: "") else {
                    change.lose()
                    continue
                }
                let widget = Array(sealed.header.widget.description.utf8)[...]
                // One that cannot be read is a doubt, which takes nothing off (`UsageChange`).
                let previous = (try? FileSystem.readFile("\(directory)/\(key.fileName)", limit: TimelineFile.maximumFileBytes)) ?? nil
                change.removing(previous, key: key, expected: widget, ledger: ledger, metadataKey: metadataKey)
                change.adding(widget: widget, fileBytes: bytes.count)
            }
            // In slices, so that a fold of many widgets does not start a thread for each.
            var start = 0
            while start < all.count {
                let slice = Array(all[start..<min(start + Self.filesPerFoldSlice, all.count)])
                if let failure = try FileSystem.writeAtomically(directory: directory, files: slice).compactMap({ $0 }).first {
                    throw failure
                }
                start += slice.count
            }
            ledger.record(files: admitted.map { (key: $0.key, bytes: $0.value) })
            return change
        }, thenSave: { () throws(LedgerError) in
            // Anchored (DESIGN §9): a fold is where the catalog's rollback window closes.
            try ledger.saveAnchored()
        })
        try restart()
        filesLock.withLock { files.removeAll() }
    }

    /// How many files a fold replaces at a time.
    private static let filesPerFoldSlice = 64

    /// Invalidates every record durably and starts a new epoch at the front.
    private func restart() throws(LedgerError) {
        let zeros = [UInt8](repeating: 0, count: Self.headerByteCount)
        try zeros.withBytes { (buffer) throws(LedgerError) in try FileSystem.writeAt(fd, buffer, at: 0, path: path) }
        try FileSystem.call("fdatasync", path) { fdatasync(fd.rawValue) }
        tail = 0
        sequence = 0
        epoch = try Self.newEpoch()
    }

    private static func newEpoch() throws(LedgerError) -> [UInt8] {
        do { return try Sodium.randomBytes(count: 8) } catch { throw LedgerError(error) }
    }

    /// Appends one record (header, file, MAC) to `out`.
    private func appendRecord(
        _ key: FileDigest, _ bytes: [UInt8], sequence: UInt64, to out: inout [UInt8]
    ) throws(LedgerError) {
        let start = out.count
        out.append(contentsOf: Self.magic)
        out.append(contentsOf: epoch)
        withUnsafeBytes(of: sequence.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: key.high.bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: key.low.bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: bytes)
        let mac = try Self.mac(out[start...], key: macKey)
        out.append(contentsOf: mac)
    }

    private static func mac(_ covered: ArraySlice<UInt8>, key: SecureBytes) throws(LedgerError) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: macByteCount)
        let result: Result<Void, CryptoError> = covered.withUnsafeBytes { input in
            mac.withUnsafeMutableBytes { out in
                Result { () throws(CryptoError) in try KeyedHash.publicHash(input, key: key, into: out) }
            }
        }
        try LedgerError.crypto { () throws(CryptoError) in try result.get() }
        return mac
    }

    /// One record read back.
    struct Record {
        let key: FileDigest
        let bytes: [UInt8]
    }

    /// The records of the journal's current epoch, in order, up to the first that does
    /// not verify or does not follow in sequence.
    private static func read(fd: FileDescriptor, path: String, macKey: SecureBytes) throws(LedgerError) -> [Record] {
        // Most opens find an empty journal: its first header says so without reading the rest.
        var first = [UInt8](repeating: 0, count: headerByteCount)
        guard try FileSystem.readAt(fd, into: &first, at: 0, path: path) == headerByteCount, Array(first.prefix(4)) == magic else {
            return []
        }
        var info = stat()
        try FileSystem.call("fstat", path) { fstat(fd.rawValue, &info) }
        var contents = [UInt8](repeating: 0, count: Int(info.st_size))
        let size = try FileSystem.readAt(fd, into: &contents, at: 0, path: path)
        return try parse(contents.prefix(size), macKey: macKey)
    }

    /// The valid records at the front of `contents` (see `read`).
    static func parse(_ contents: ArraySlice<UInt8>, macKey: SecureBytes) throws(LedgerError) -> [Record] {
        var records: [Record] = []
        var offset = contents.startIndex
        var epoch: ArraySlice<UInt8>? = nil
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(contents[at + $1]) << (8 * $1) } }
        while contents.endIndex - offset >= overhead {
            guard contents[offset..<offset + 4].elementsEqual(magic) else { break }
            let recordEpoch = contents[offset + 4..<offset + 12]
            if let epoch, !epoch.elementsEqual(recordEpoch) { break }
            guard u64(offset + 12) == UInt64(records.count) else { break }
            let key = FileDigest(digest: contents[offset + 20..<offset + 36])
            let length = Int((0..<4).reduce(UInt32(0)) { $0 | UInt32(contents[offset + 36 + $1]) << (8 * $1) })
            let end = offset + headerByteCount + length
            guard length <= TimelineFile.maximumFileBytes, contents.endIndex - end >= macByteCount else { break }
            let expected = try mac(contents[offset..<end], key: macKey)
            let stored = contents[end..<end + macByteCount]
            let matches = Sodium.constantTimeEquals(expected, stored)
            guard matches else { break }
            epoch = recordEpoch
            records.append(Record(key: key, bytes: Array(contents[offset + headerByteCount..<end])))
            offset = end + macByteCount
        }
        return records
    }

    /// Makes the file exactly `capacity` bytes of allocated blocks, so that appends
    /// overwrite in place and `fdatasync` writes data only (a growing file would also
    /// write its inode on every sync).
    private func preallocate() throws(LedgerError) {
        var info = stat()
        try FileSystem.call("fstat", path) { fstat(fd.rawValue, &info) }
        let size = Int(info.st_size)
        guard size != capacity else { return }
        if size > capacity {
            try FileSystem.call("ftruncate", path) { ftruncate(fd.rawValue, off_t(capacity)) }
        } else {
            let zeros = [UInt8](repeating: 0, count: 64 << 10)
            var offset = size
            while offset < capacity {
                let count = min(zeros.count, capacity - offset)
                try zeros.withBytes { (buffer) throws(LedgerError) in
                    try FileSystem.writeAt(fd, UnsafeRawBufferPointer(rebasing: buffer.prefix(count)), at: offset, path: path)
                }
                offset += count
            }
        }
        try FileSystem.call("fsync", path) { fsync(fd.rawValue) }
        try FileSystem.syncDirectory(stateDirectory)
    }
}
