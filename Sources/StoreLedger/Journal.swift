import Dispatch
import FoundationEssentials
import Glibc
import SecureMemory
import StoreFiles
import WidgetCrypto
import WidgetdPOSIX

/// The write-ahead journal (`STATE/journal`): where a durable write first lands.
///
/// A write's sealed timeline file (the very bytes its `.wtl` file will hold) is
/// appended to this preallocated file and made durable with one `fdatasync` per batch,
/// in place: no new inode, no `rename`, no directory `fsync` on the write's path. The
/// files are brought up to date later, all at once (`fold`), as a database's
/// fold does: each file written once however many times it was journaled. Until
/// then `pending(_:)` serves the newest journaled bytes of a file in its place.
///
/// The file is two regions of `capacity` bytes each, so that a fold does not stall the
/// writers: appends go to the active region; when it is full they turn to the other,
/// and the full one is folded beside them (`JournalFolding.inBackground`), on another thread.
/// Only if the other region is still folding when the active one fills again does an
/// append wait. The files are also folded before a delete or a wipe, at an orderly
/// stop, and at open after a crash.
///
/// ```
/// file     region 0 (capacity bytes) | region 1 (capacity bytes)
/// region   record* (from its first byte; a zeroed first header: empty)
/// record   "WDJR" | epoch (8) | sequence u64 | file-name digest (16) | length u32 | sealed file | MAC (16)
/// ```
///
/// The MAC is a keyed BLAKE2b of everything before it, under a device subkey. Every
/// fold of a region starts it again with a new random epoch and sequence 0, so records
/// left over from an earlier epoch beyond the new ones never read as current. Reading a
/// region stops at the first record that does not verify or does not follow in
/// sequence: a write torn by a crash was never acknowledged, so what follows it was not
/// either. The second region starts at half the file's size, whatever `capacity` the
/// run that wrote it had; a file of one region (as older versions wrote it) has no
/// record of sequence 0 there. What is journaled is what the file would hold — sealed,
/// never plaintext — so the journal adds nothing to read while locked. A fold writes
/// the files durably before it empties its region (zeroes its first header and syncs),
/// so a crash at any point replays at worst records whose files are already written.
/// Both regions replay at open, in either order: the catalog admits a record only if it
/// is not older than what it holds for its file, so the newer of two records of a file
/// wins wherever it lies.
///
/// A fold also keeps the catalog (`GenerationLedger`) durable: it writes no record older than
/// the generation the catalog holds for its file (a journal restored from a backup
/// must not replace newer files), and saves the generations it wrote after the files
/// and before the region is emptied, anchored to the rollback counter when there is
/// one (`GenerationLedger.saveAnchored`): one counter increment per fold, none per write.
/// It keeps the catalog's usage table with the files too (`GenerationLedger.changeFiles`):
/// each file it replaces is judged as it was before (`UsageChange.removing`), each
/// record it writes counted, so that a start after a crash, once its replay is folded,
/// knows every provider's usage.
///
/// Threading: `append`, `fold` and `discard` may run on any thread and take turns
/// (`writeLock`); a region's fold holds `foldLock`, which an append that needs that
/// region waits for; `pending` may run beside them all. One journal per state
/// directory at a time: a second one opened on it folds and empties it under the first
/// (`StateDirectoryLock` keeps a second daemon out; a store reopened in a test while
/// the first lives is a restart after a crash of the first, which then must not write
/// again).
package final class Journal: @unchecked Sendable {
    package static let fileName = "journal"
    /// The default size of each of the file's two regions.
    package static let defaultCapacity = 4 << 20

    private static let magic: [UInt8] = Array("WDJR".utf8)
    private static let headerByteCount = 4 + 8 + 8 + 16 + 4
    private static let macByteCount = 16
    /// What a record adds to the file it carries.
    package static let overhead = headerByteCount + macByteCount

    private let path: String
    private let stateDirectory: String
    /// Where the timeline files are folded to.
    private let directory: String
    /// The size of each region (the file's half, as found, when an open could not fold).
    private var capacity: Int
    private let macKey: SecureBytes
    private let fd: FileDescriptor
    /// The generations the folds record.
    private let ledger: GenerationLedger
    private let folding: JournalFolding
    /// Runs a background fold: on a queue of its own, one at a time. Tests hold the
    /// folds back here to see the journal while a region waits to be folded.
    package var scheduleFold: @Sendable (@escaping @Sendable () -> Void) -> Void = { work in
        Journal.foldQueue.async(execute: work)
    }
    private static let foldQueue = DispatchQueue(label: "widgetd.journal.fold")
    /// Opens the metadata of a file a fold replaces, to judge whether it counted.
    private let metadataKey: SecureBytes

    /// One region of the file and the records it holds; its fields change under
    /// `stateLock` (the journal's locks say who may change them).
    private final class Region: @unchecked Sendable {
        /// Its first byte in the file.
        let base: Int
        var tail = 0
        var epoch: [UInt8]
        var sequence: UInt64 = 0
        /// The newest bytes of each file journaled here and not folded yet.
        var files: [FileDigest: [UInt8]] = [:]
        /// Full and waiting for (or being folded by) a background fold.
        var sealed = false
        /// Counts the times it was sealed, so that a background fold folds the sealing
        /// it was started for and not a later use of the region.
        var sealings = 0

        init(base: Int, epoch: [UInt8]) {
            self.base = base
            self.epoch = epoch
        }
    }

    private var regions: [Region]
    /// Serialises `append`, `fold` and `discard`.
    private let writeLock = ThreadLock()
    /// Held by whoever folds a sealed region; an append that needs it waits for it.
    private let foldLock = ThreadLock()
    /// Guards `active` and every region's fields, which `pending` and a background
    /// fold read beside an append.
    private let stateLock = ThreadLock()
    /// The region appends go to.
    private var active = 0

    /// How many records the open replayed (folded into their files at once, unless
    /// `unfoldedAtOpen`).
    package let recoveredRecords: Int

    /// Why the open could not fold the records it replayed (no space left on the file
    /// system), or `nil`: they stay in the journal, where they are served from
    /// (`pending`) and folded again by the next fold, once there is room. The journal is
    /// never emptied before every record is durably in its file.
    package private(set) var unfoldedAtOpen: FileError?

    /// The file-name digests of the records not folded yet (an open that could not fold
    /// them: the index learns of them from here).
    package var pendingKeys: [FileDigest] {
        stateLock.withLock { Array(Set(regions.flatMap { $0.files.keys })) }
    }

    /// Opens (creating and preallocating it if needed) `stateDirectory/journal`, and
    /// folds any records a crash left in it into `timelinesDirectory`. On a full file
    /// system (`ENOSPC`) records that cannot be folded are kept where they are and
    /// served from there (`unfoldedAtOpen`), the file's regions as found; only a file
    /// whose records do not fit that shape (one region of an older version, larger than
    /// half the file) makes the open throw, the journal untouched.
    package init(
        stateDirectory: String, timelinesDirectory: String, capacity: Int = Journal.defaultCapacity, macKey: SecureBytes,
        metadataKey: SecureBytes, ledger: GenerationLedger, folding: JournalFolding = .inBackground
    ) throws(FileError) {
        precondition(capacity > Self.overhead, "a journal must hold at least one record")
        let path = "\(stateDirectory)/\(Self.fileName)"
        // Created if absent; an existing one must be a regular file of ours (`openFile`).
        guard let fd = try FileSystem.openFile(path, flags: O_RDWR | O_CREAT) else {
            throw .io(operation: "open", path: path, errno: .noSuchFileOrDirectory)
        }
        let replayed: [ReplayedRegion]
        do throws(FileError) {
            replayed = try Self.read(fd: fd, path: path, macKey: macKey)
            regions = [Region(base: 0, epoch: try Self.newEpoch()), Region(base: capacity, epoch: try Self.newEpoch())]
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
        self.folding = folding
        recoveredRecords = replayed.reduce(0) { $0 + $1.records.count }
        // Folded where they were read (a region's place depends on the file's size,
        // which the preallocation below may change), each region's records into their files.
        do throws(FileError) {
            for region in replayed where !region.records.isEmpty {
                var newest: [FileDigest: [UInt8]] = [:]
                for record in region.records { newest[record.key] = record.bytes }
                try foldRecords(newest)
            }
        } catch .io(let operation, let failedPath, Errno(rawValue: ENOSPC)) {
            // Not folded: nothing is emptied, and the records are served from here.
            try adopt(replayed, fileSize: Self.size(of: fd, path: path))
            unfoldedAtOpen = .io(operation: operation, path: failedPath, errno: Errno(rawValue: ENOSPC))
            return
        }
        if recoveredRecords > 0 { try zeroFirstHeaders(fileSize: Self.size(of: fd, path: path)) }
        try preallocate()
    }

    /// Takes the regions as the file holds them (an open that could not fold them): each
    /// at its place, its records pending, appends continuing after them in the same
    /// epoch. Throws, the file untouched, if a region's records run past its half (a
    /// file of one region, as older versions wrote it).
    private func adopt(_ replayed: [ReplayedRegion], fileSize: Int) throws(FileError) {
        let half = fileSize / 2
        guard half > Self.overhead, replayed.count == 2, replayed.allSatisfy({ $0.byteCount <= half }) else {
            throw .io(operation: "fold (a journal of an older shape, on a full file system)", path: path, errno: Errno(rawValue: ENOSPC))
        }
        capacity = half
        var adopted: [Region] = []
        for (index, found) in replayed.enumerated() {
            let region = Region(base: index * half, epoch: found.epoch ?? regions[index].epoch)
            region.tail = found.byteCount
            region.sequence = UInt64(found.records.count)
            for record in found.records { region.files[record.key] = record.bytes }
            adopted.append(region)
        }
        stateLock.withLock {
            regions = adopted
            // Appends go where there is more room; `pending` weighs generations, not regions.
            active = adopted[0].tail <= adopted[1].tail ? 0 : 1
        }
    }

    deinit { Syscall.close(fd) }

    /// Whether `stateDirectory/journal` holds a record (a region's first header starts
    /// with the magic), without a key: acknowledged writes that a lost keybag would make
    /// unreadable (`TimelineStore`'s start check). Read as `FileSystem.openFile` says.
    package static func holdsRecords(stateDirectory: String) throws(FileError) -> Bool {
        let path = "\(stateDirectory)/\(fileName)"
        guard let fd = try FileSystem.openFile(path) else { return false }
        defer { Syscall.close(fd) }
        for base in regionBases(fileSize: try size(of: fd, path: path)) {
            var first = [UInt8](repeating: 0, count: magic.count)
            if try FileSystem.readAt(fd, into: &first, at: base, path: path) == magic.count, first == magic { return true }
        }
        return false
    }

    /// The newest journaled bytes of the file `key` names, or `nil` if its file is current.
    package func pending(_ key: FileDigest) -> [UInt8]? {
        stateLock.withLock {
            // The active region's records are newer than the other's, except in regions
            // an open took as it found them (`adopt`): the higher generation wins.
            let (newer, older) = (regions[active].files[key], regions[1 - active].files[key])
            guard let newer, let older else { return newer ?? older }
            return (TimelineFile.generation(of: older) ?? 0) > (TimelineFile.generation(of: newer) ?? 0) ? older : newer
        }
    }

    /// Drops `key`'s records up to `generation` from what is served and folded (a
    /// delete, which the catalog recorded durably first: a replay of them after a crash
    /// is refused by it); a newer one, written after the delete, stays.
    package func forget(_ key: FileDigest, upTo generation: UInt64) {
        stateLock.withLock {
            for region in regions {
                if let bytes = region.files[key], (TimelineFile.generation(of: bytes) ?? 0) <= generation { region.files[key] = nil }
            }
        }
    }

    /// Whether files of these sizes would be appended without a fold first: a caller
    /// that must not wait for a fold (the event loop) hands the others to a worker.
    package func fitsWithoutFold(fileBytes: [Int]) -> Bool {
        let size = fileBytes.reduce(0) { $0 + Self.overhead + $1 }
        return stateLock.withLock {
            if regions[active].tail + size <= capacity { return true }
            // Turning to an empty other region folds the full one elsewhere.
            let other = regions[1 - active]
            return folding == .inBackground && size <= capacity && other.tail == 0 && !other.sealed
        }
    }

    /// Appends a batch of sealed files durably (one write and one `fdatasync`), turning
    /// to the other region first if they do not fit in what is left of the active one.
    /// Returns `false`, having written nothing, when the batch does not fit even in an
    /// empty region: the caller writes those files directly (after `fold`, so no older
    /// record of theirs can replay). On failure nothing of the batch counts as written;
    /// a later append overwrites it.
    package func append(_ batch: [(key: FileDigest, bytes: [UInt8])]) throws(FileError) -> Bool {
        let size = batch.reduce(0) { $0 + Self.overhead + $1.bytes.count }
        guard size <= capacity else { return false }
        return try serialized { () throws(FileError) -> Bool in
            var region = stateLock.withLock { regions[active] }
            if region.tail + size > capacity {
                try turnOver()
                region = stateLock.withLock { regions[active] }
            }
            var records: [UInt8] = []
            records.reserveCapacity(size)
            var next = region.sequence
            for file in batch {
                try appendRecord(file.key, file.bytes, epoch: region.epoch, sequence: next, to: &records)
                next += 1
            }
            try records.withBytes { (buffer) throws(FileError) in
                try FileSystem.writeAt(fd, buffer, at: region.base + region.tail, path: path)
            }
            try FileSystem.call("fdatasync", path) { fdatasync(fd.rawValue) }
            stateLock.withLock {
                region.tail += size
                region.sequence = next
                for file in batch { region.files[file.key] = file.bytes }
            }
            return true
        }
    }

    /// Makes the other region the active one and folds the full one: beside the
    /// appends (`inBackground`) or now (`atOnce`). The other region must be empty
    /// first: if its fold is still running this waits for it, and if that fold
    /// failed, folds it again here and throws what stops it. Holds `writeLock`.
    private func turnOver() throws(FileError) {
        foldLock.lock()
        defer { foldLock.unlock() }
        let (full, other) = stateLock.withLock { (regions[active], regions[1 - active]) }
        if stateLock.withLock({ other.tail > 0 }) { try foldLocked(other) }
        switch folding {
        case .atOnce:
            try foldLocked(full)
        case .inBackground:
            let sealing = stateLock.withLock { () -> Int in
                active = 1 - active
                full.sealed = true
                full.sealings += 1
                return full.sealings
            }
            scheduleFold { [self] in foldInBackground(full, sealing: sealing) }
        }
    }

    /// Folds `region` if it is still the sealing `sealing` left (an append that could
    /// not wait may have folded it already). A failure leaves it sealed with its
    /// records, served by `pending`: the next append that needs the region folds it
    /// again and reports the error to its writers.
    private func foldInBackground(_ region: Region, sealing: Int) {
        foldLock.lock()
        defer { foldLock.unlock() }
        guard stateLock.withLock({ region.sealed && region.sealings == sealing }) else { return }
        try? foldLocked(region)
    }

    /// Writes every journaled file into place (each once, its newest bytes), durably,
    /// then empties the journal durably. On failure the journal is kept as it was.
    package func fold() throws(FileError) {
        try serialized { () throws(FileError) in
            foldLock.lock()
            defer { foldLock.unlock() }
            // The older region first, though either order ends the same (see the type).
            let (newer, older) = stateLock.withLock { (regions[active], regions[1 - active]) }
            try foldLocked(older)
            try foldLocked(newer)
        }
    }

    /// Empties the journal durably without writing its files (a wipe: they are going).
    package func discard() throws(FileError) {
        try serialized { () throws(FileError) in
            foldLock.lock()
            defer { foldLock.unlock() }
            for region in regions {
                try restart(region)
                stateLock.withLock {
                    region.files.removeAll()
                    region.sealed = false
                }
            }
        }
    }

    /// Runs `body` holding `writeLock`.
    private func serialized<T>(_ body: () throws(FileError) -> T) throws(FileError) -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        return try body()
    }

    /// Folds `region`'s records into their files and empties it. Holds `foldLock`.
    private func foldLocked(_ region: Region) throws(FileError) {
        let snapshot = stateLock.withLock { region.files }
        if !snapshot.isEmpty { try foldRecords(snapshot) }
        try restart(region)
        stateLock.withLock {
            region.files.removeAll()
            region.sealed = false
        }
    }

    /// Writes the files of `records` the catalog admits into place durably, then saves
    /// their generations in the catalog.
    private func foldRecords(_ records: [FileDigest: [UInt8]]) throws(FileError) {
        let (directory, ledger, metadataKey) = (directory, ledger, metadataKey)
        try ledger.changeFiles(withholding: true, { () throws(FileError) -> UsageChange in
            // Judged inside the change, which a delete's takes turns with: not older than
            // the catalog's record, nor of a widget deleted since.
            var admitted: [(key: FileDigest, value: [UInt8])] = []
            for (key, bytes) in records where try ledger.verdict(key, generation: TimelineFile.generation(of: bytes) ?? 0) == .current {
                admitted.append((key, bytes))
            }
            let all = admitted.map { (name: $0.key.fileName, bytes: $0.value) }
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
        }, thenSave: { () throws(FileError) in
            // Anchored (DESIGN §9): a fold is where the catalog's rollback window closes.
            try ledger.saveAnchored()
        })
    }

    /// How many files a fold replaces at a time.
    private static let filesPerFoldSlice = 64

    /// Invalidates every record of `region` durably and starts it again, in a new epoch.
    private func restart(_ region: Region) throws(FileError) {
        let zeros = [UInt8](repeating: 0, count: Self.headerByteCount)
        try zeros.withBytes { (buffer) throws(FileError) in try FileSystem.writeAt(fd, buffer, at: region.base, path: path) }
        try FileSystem.call("fdatasync", path) { fdatasync(fd.rawValue) }
        let epoch = try Self.newEpoch()
        stateLock.withLock {
            region.tail = 0
            region.sequence = 0
            region.epoch = epoch
        }
    }

    /// Invalidates the records of a file's regions as `read` found them, durably (the
    /// open, once it folded them).
    private func zeroFirstHeaders(fileSize: Int) throws(FileError) {
        let zeros = [UInt8](repeating: 0, count: Self.headerByteCount)
        for base in Self.regionBases(fileSize: fileSize) {
            try zeros.withBytes { (buffer) throws(FileError) in try FileSystem.writeAt(fd, buffer, at: base, path: path) }
        }
        try FileSystem.call("fdatasync", path) { fdatasync(fd.rawValue) }
    }

    /// Where a file of `fileSize` bytes has its regions: at its start and at half its
    /// size (when a record fits there).
    private static func regionBases(fileSize: Int) -> [Int] {
        fileSize / 2 >= overhead ? [0, fileSize / 2] : [0]
    }

    private static func size(of fd: FileDescriptor, path: String) throws(FileError) -> Int {
        var info = stat()
        try FileSystem.call("fstat", path) { fstat(fd.rawValue, &info) }
        return Int(info.st_size)
    }

    private static func newEpoch() throws(FileError) -> [UInt8] {
        do { return try Sodium.randomBytes(count: 8) } catch { throw FileError(error) }
    }

    /// Appends one record (header, file, MAC) to `out`.
    private func appendRecord(
        _ key: FileDigest, _ bytes: [UInt8], epoch: [UInt8], sequence: UInt64, to out: inout [UInt8]
    ) throws(FileError) {
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

    private static func mac(_ covered: ArraySlice<UInt8>, key: SecureBytes) throws(FileError) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: macByteCount)
        let result: Result<Void, CryptoError> = covered.withUnsafeBytes { input in
            mac.withUnsafeMutableBytes { out in
                Result { () throws(CryptoError) in try KeyedHash.publicHash(input, key: key, into: out) }
            }
        }
        try FileError.crypto { () throws(CryptoError) in try result.get() }
        return mac
    }

    /// One record read back.
    package struct Record {
        package let key: FileDigest
        package let bytes: [UInt8]
    }

    /// What a region held at open: its records in order, the bytes they take from the
    /// region's start, and their epoch (`nil` if none).
    package struct ReplayedRegion {
        package var records: [Record] = []
        package var byteCount = 0
        package var epoch: [UInt8]?
    }

    /// The records of each region's current epoch, in order, up to the first that does
    /// not verify or does not follow in sequence.
    private static func read(fd: FileDescriptor, path: String, macKey: SecureBytes) throws(FileError) -> [ReplayedRegion] {
        let fileSize = try size(of: fd, path: path)
        var regions: [ReplayedRegion] = []
        for base in regionBases(fileSize: fileSize) {
            // Most opens find an empty region: its first header says so without reading the rest.
            var first = [UInt8](repeating: 0, count: headerByteCount)
            guard try FileSystem.readAt(fd, into: &first, at: base, path: path) == headerByteCount,
                Array(first.prefix(4)) == magic
            else {
                regions.append(ReplayedRegion())
                continue
            }
            // To the file's end: the first region's records stop before the second's
            // (whose epoch and sequence do not follow), and a file of one region has
            // records past the middle.
            var contents = [UInt8](repeating: 0, count: fileSize - base)
            let count = try FileSystem.readAt(fd, into: &contents, at: base, path: path)
            regions.append(try parseRegion(contents.prefix(count), macKey: macKey))
        }
        return regions
    }

    /// The valid records at the front of `contents` (see `read`).
    package static func parse(_ contents: ArraySlice<UInt8>, macKey: SecureBytes) throws(FileError) -> [Record] {
        try parseRegion(contents, macKey: macKey).records
    }

    /// `parse`, with the bytes the records take and their epoch.
    private static func parseRegion(_ contents: ArraySlice<UInt8>, macKey: SecureBytes) throws(FileError) -> ReplayedRegion {
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
        return ReplayedRegion(records: records, byteCount: offset - contents.startIndex, epoch: epoch.map(Array.init))
    }

    /// Makes the file exactly two regions of allocated blocks, so that appends
    /// overwrite in place and `fdatasync` writes data only (a growing file would also
    /// write its inode on every sync).
    private func preallocate() throws(FileError) {
        let size = try Self.size(of: fd, path: path)
        let total = 2 * capacity
        guard size != total else { return }
        if size > total {
            try FileSystem.call("ftruncate", path) { ftruncate(fd.rawValue, off_t(total)) }
        } else {
            let zeros = [UInt8](repeating: 0, count: 64 << 10)
            var offset = size
            while offset < total {
                let count = min(zeros.count, total - offset)
                try zeros.withBytes { (buffer) throws(FileError) in
                    try FileSystem.writeAt(fd, UnsafeRawBufferPointer(rebasing: buffer.prefix(count)), at: offset, path: path)
                }
                offset += count
            }
        }
        // The regions move with the size: whatever lay where they now start was
        // folded above, or never held a record of theirs.
        let zeros = [UInt8](repeating: 0, count: Self.headerByteCount)
        for region in regions {
            try zeros.withBytes { (buffer) throws(FileError) in try FileSystem.writeAt(fd, buffer, at: region.base, path: path) }
        }
        try FileSystem.call("fsync", path) { fsync(fd.rawValue) }
        try FileSystem.syncDirectory(stateDirectory)
    }
}
