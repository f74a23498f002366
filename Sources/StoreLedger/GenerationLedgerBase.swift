import FoundationEssentials
import Glibc
import SecureMemory
import StoreFiles
import WidgetCrypto
import WidgetdPOSIX

/// The catalog's base (`STATE/catalog.base.<sequence>`): every widget's entry as of the
/// last compaction, sorted by file-name digest, in blocks of 128 entries each under its
/// own MAC, so that a lookup reads and verifies one block (3 KiB) instead of the whole
/// catalog being read before the daemon is ready.
///
/// ```
/// "WCTB" | version u8 (1) | sequence u64 | count u64
///        | blocks: per entry digest (16) | generation << 1 | deleted (u64)
///        | per block: first digest (16) | block MAC (32)
///        || table MAC (32): keyed BLAKE2b of the header and the block table
/// block MAC: keyed BLAKE2b of "WCBK" | sequence | block number u32 | the block's entries
/// ```
///
/// The table MAC is what the head (`GenerationLedger`) names, so a base is only read beside the
/// head that wrote it; each block MAC binds its entries to their place in that base, so
/// a block altered, moved or taken from another base fails when it is read. A base is
/// written once (`write`) and never changed; a compaction writes the next sequence.
///
/// The table follows the blocks, so a base is written in one pass without knowing its
/// size first (`Writer`).
///
/// Threading: not thread-safe; `GenerationLedger` guards it. `entries(inBlock:)` (the
/// compaction's sequential pass) only reads the descriptor and may run beside lookups.
package final class GenerationLedgerBase {
    private static let entriesPerBlock = 128
    package static let entryByteCount = 24
    package static let magic = Array("WCTB".utf8)
    private static let blockMagic = Array("WCBK".utf8)
    package static let version: UInt8 = 1
    package static let headerByteCount = 4 + 1 + 8 + 8
    private static let tableEntryByteCount = 16 + 32
    package static let macByteCount = 32
    /// Verified blocks kept for lookups: a write and its fold look up the same widget.
    private static let cachedBlocks = 64

    /// The file name of base `sequence`.
    package static func fileName(_ sequence: UInt64) -> String { "catalog.base.\(sequence)" }

    package let path: String
    package let sequence: UInt64
    /// Entries held.
    package let count: Int
    /// The MAC over header and block table, which the head records.
    package let tableMAC: [UInt8]
    private let fd: FileDescriptor
    private let macKey: SecureBytes
    private let firstKeys: [FileDigest]
    /// Each block's MAC, 32 bytes each.
    private let blockMACs: [UInt8]
    /// Recently verified blocks (number, entries), the most recent last.
    private var cache: [(block: Int, bytes: [UInt8])] = []

    private var blockCount: Int { firstKeys.count }

    private init(
        path: String, sequence: UInt64, count: Int, tableMAC: [UInt8], fd: FileDescriptor, macKey: SecureBytes,
        firstKeys: [FileDigest], blockMACs: [UInt8]
    ) {
        self.path = path
        self.sequence = sequence
        self.count = count
        self.tableMAC = tableMAC
        self.fd = fd
        self.macKey = macKey
        self.firstKeys = firstKeys
        self.blockMACs = blockMACs
    }

    deinit { Syscall.close(fd) }

    /// Opens base `sequence` of `stateDirectory` and verifies its header and block
    /// table (not its blocks: each is verified when read). `nil` if it does not exist.
    static func open(stateDirectory: String, sequence: UInt64, macKey: SecureBytes) throws(FileError) -> GenerationLedgerBase? {
        let path = "\(stateDirectory)/\(fileName(sequence))"
        guard let (fd, info) = try FileSystem.openFileWithStatus(path) else { return nil }
        do throws(FileError) {
            var header = [UInt8](repeating: 0, count: headerByteCount)
            guard try FileSystem.readAt(fd, into: &header, at: 0, path: path) == headerByteCount else { throw .corrupt(file: path, reason: .truncated) }
            guard Array(header.prefix(4)) == magic else { throw .corrupt(file: path, reason: .badMagic) }
            let fileSequence = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 5, as: UInt64.self)) }
            let count64 = header.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 13, as: UInt64.self)) }
            guard count64 < 1 << 40 else { throw .corrupt(file: path, reason: .malformed) }
            let count = Int(count64)
            let blocks = (count + entriesPerBlock - 1) / entriesPerBlock
            let tableOffset = headerByteCount + count * entryByteCount
            let tableBytes = blocks * tableEntryByteCount
            let size = tableOffset + tableBytes + macByteCount
            guard Int(info.st_size) >= size else { throw .corrupt(file: path, reason: .truncated) }
            guard Int(info.st_size) == size else { throw .corrupt(file: path, reason: .malformed) }
            var table = [UInt8](repeating: 0, count: tableBytes + macByteCount)
            guard try FileSystem.readAt(fd, into: &table, at: tableOffset, path: path) == table.count else { throw .corrupt(file: path, reason: .truncated) }
            let expected = try mac([header[...], table[..<tableBytes]], key: macKey)
            guard Sodium.constantTimeEquals(expected, table[tableBytes...]) else { throw .corrupt(file: path, reason: .authenticationFailure) }
            guard header[4] == version else { throw .corrupt(file: path, reason: .unsupportedVersion) }
            guard fileSequence == sequence else { throw .corrupt(file: path, reason: .malformed) }
            var firstKeys: [FileDigest] = []
            firstKeys.reserveCapacity(blocks)
            var blockMACs: [UInt8] = []
            blockMACs.reserveCapacity(blocks * macByteCount)
            table.withUnsafeBytes { raw in
                for block in 0..<blocks {
                    let at = block * tableEntryByteCount
                    firstKeys.append(key(in: raw, at: at))
                    blockMACs.append(contentsOf: raw[(at + 16)..<(at + tableEntryByteCount)])
                }
            }
            return GenerationLedgerBase(
                path: path, sequence: sequence, count: count, tableMAC: Array(table[tableBytes...]), fd: fd, macKey: macKey,
                firstKeys: firstKeys, blockMACs: blockMACs)
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    /// The value (generation << 1 | deleted) recorded for `key`, if any; reads and
    /// verifies its block unless it was read recently.
    package func lookup(_ key: FileDigest) throws(FileError) -> UInt64? {
        // The last block whose first key is not above `key`.
        var low = 0
        var high = blockCount
        while low < high {
            let middle = (low + high) / 2
            if firstKeys[middle] <= key { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let block = low - 1
        let bytes: [UInt8]
        if let hit = cache.lastIndex(where: { $0.block == block }) {
            bytes = cache[hit].bytes
            if hit != cache.count - 1 { cache.append(cache.remove(at: hit)) }
        } else {
            bytes = try entries(inBlock: block)
            if cache.count == Self.cachedBlocks { cache.removeFirst() }
            cache.append((block, bytes))
        }
        return bytes.withUnsafeBytes { raw in
            var low = 0
            var high = raw.count / Self.entryByteCount
            while low < high {
                let middle = (low + high) / 2
                let found = Self.key(in: raw, at: middle * Self.entryByteCount)
                if found == key { return Self.value(in: raw, at: middle * Self.entryByteCount) }
                if found < key { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// How many blocks the base holds (for the compaction's pass).
    package var blocks: Int { blockCount }

    /// Block `block`'s entries, read and verified (its MAC, its first key, its order).
    package func entries(inBlock block: Int) throws(FileError) -> [UInt8] {
        let first = block * Self.entriesPerBlock
        let count = min(Self.entriesPerBlock, self.count - first)
        var bytes = [UInt8](repeating: 0, count: count * Self.entryByteCount)
        guard try FileSystem.readAt(fd, into: &bytes, at: Self.headerByteCount + first * Self.entryByteCount, path: path) == bytes.count else {
            throw .corrupt(file: path, reason: .truncated)
        }
        let expected = try Self.blockMAC(sequence: sequence, block: block, bytes[...], key: macKey)
        let stored = blockMACs[(block * Self.macByteCount)..<((block + 1) * Self.macByteCount)]
        guard Sodium.constantTimeEquals(expected, stored) else { throw .corrupt(file: path, reason: .authenticationFailure) }
        let ordered: Bool = bytes.withUnsafeBytes { raw in
            guard Self.key(in: raw, at: 0) == firstKeys[block] else { return false }
            for i in 1..<count where !(Self.key(in: raw, at: (i - 1) * Self.entryByteCount) < Self.key(in: raw, at: i * Self.entryByteCount)) {
                return false
            }
            return true
        }
        guard ordered else { throw .corrupt(file: path, reason: .malformed) }
        return bytes
    }

    // MARK: Writing

    /// Writes the next base durably, entry by entry (sorted by key, each key once), so
    /// that a large catalog is never held whole: blocks as they fill, then the table
    /// and the header, to a temporary file renamed into place (`finish`).
    package struct Writer {
        private let stateDirectory: String
        private let sequence: UInt64
        private let macKey: SecureBytes
        private let temporary: String
        private let fd: FileDescriptor
        private var table = ByteWriter()
        private var block = ByteWriter(reservingCapacity: GenerationLedgerBase.entriesPerBlock * GenerationLedgerBase.entryByteCount)
        private var first: FileDigest?
        private var previous: FileDigest?
        private var inBlock = 0
        private var blocks = 0
        private var count = 0
        private var offset = GenerationLedgerBase.headerByteCount
        private var closed = false

        package init(stateDirectory: String, sequence: UInt64, macKey: SecureBytes) throws(FileError) {
            self.stateDirectory = stateDirectory
            self.sequence = sequence
            self.macKey = macKey
            let suffix: [UInt8]
            do { suffix = try Sodium.randomBytes(count: 8) } catch { throw FileError(error) }
            let temporary = "\(stateDirectory)/.tmp-\(Hex.encode(suffix))"
            self.temporary = temporary
            fd = FileDescriptor(
                rawValue: try FileSystem.call("create", temporary) {
                    Glibc.open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
                })
        }

        /// Adds the next entry.
        package mutating func append(_ key: FileDigest, _ value: UInt64) throws(FileError) {
            precondition(previous.map { $0 < key } ?? true, "catalog entries are written sorted, each once")
            previous = key
            if first == nil { first = key }
            GenerationLedgerBase.appendEntry(key, value, to: &block)
            inBlock += 1
            count += 1
            if inBlock == GenerationLedgerBase.entriesPerBlock { try flush() }
        }

        private mutating func flush() throws(FileError) {
            guard let first else { return }
            let mac = try GenerationLedgerBase.blockMAC(sequence: sequence, block: blocks, block.bytes[...], key: macKey)
            GenerationLedgerBase.appendKey(first, to: &table)
            table.raw(mac)
            try FileSystem.writeAt(fd, block.bytes, at: offset, path: temporary)
            offset += block.bytes.count
            blocks += 1
            block = ByteWriter(reservingCapacity: GenerationLedgerBase.entriesPerBlock * GenerationLedgerBase.entryByteCount)
            self.first = nil
            inBlock = 0
        }

        /// Writes the table and header, syncs, renames into place and syncs the
        /// directory; returns the table MAC.
        package mutating func finish() throws(FileError) -> [UInt8] {
            try flush()
            var header = ByteWriter(reservingCapacity: GenerationLedgerBase.headerByteCount)
            header.raw(GenerationLedgerBase.magic)
            header.u8(GenerationLedgerBase.version)
            header.u64(sequence)
            header.u64(UInt64(count))
            let tableMAC = try GenerationLedgerBase.mac([header.bytes[...], table.bytes[...]], key: macKey)
            try FileSystem.writeAt(fd, table.bytes + tableMAC, at: offset, path: temporary)
            try FileSystem.writeAt(fd, header.bytes, at: 0, path: temporary)
            try FileSystem.call("fsync", temporary) { fsync(fd.rawValue) }
            closed = true
            Syscall.close(fd)
            try FileSystem.call("rename", temporary) { rename(temporary, "\(stateDirectory)/\(GenerationLedgerBase.fileName(sequence))") }
            try FileSystem.syncDirectory(stateDirectory)
            return tableMAC
        }

        /// Removes the temporary file after a failure.
        package func abandon() {
            if !closed { Syscall.close(fd) }
            unlink(temporary)
        }
    }

    // MARK: Bytes

    package static func appendEntry(_ key: FileDigest, _ value: UInt64, to w: inout ByteWriter) {
        appendKey(key, to: &w)
        w.u64(value)
    }

    private static func appendKey(_ key: FileDigest, to w: inout ByteWriter) {
        withUnsafeBytes(of: key.high.bigEndian) { w.raw($0) }
        withUnsafeBytes(of: key.low.bigEndian) { w.raw($0) }
    }

    package static func key(in raw: UnsafeRawBufferPointer, at offset: Int) -> FileDigest {
        FileDigest(
            high: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
            low: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
    }

    package static func value(in raw: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
    }

    private static func blockMAC(sequence: UInt64, block: Int, _ bytes: ArraySlice<UInt8>, key: SecureBytes) throws(FileError) -> [UInt8] {
        var prefix = ByteWriter(reservingCapacity: 16)
        prefix.raw(blockMagic)
        prefix.u64(sequence)
        prefix.u32(UInt32(block))
        return try mac([prefix.bytes[...], bytes], key: key)
    }

    /// A keyed BLAKE2b (32 bytes) of the parts one after the other.
    package static func mac(_ parts: [ArraySlice<UInt8>], key: SecureBytes) throws(FileError) -> [UInt8] {
        var input: [UInt8] = []
        input.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts { input.append(contentsOf: part) }
        var out = [UInt8](repeating: 0, count: macByteCount)
        let hashed: Result<Void, CryptoError> = input.withUnsafeBytes { i in
            out.withUnsafeMutableBytes { o in Result { () throws(CryptoError) in try KeyedHash.publicHash(i, key: key, into: o) } }
        }
        try FileError.crypto { () throws(CryptoError) in try hashed.get() }
        return out
    }
}
