import SecureMemory
import StoreFiles
import StoreLedger
import WidgetCrypto
import WidgetModel

/// The reading and verification of one timeline file, apart from what the store
/// records of it: its name (a keyed hash of the widget id), its bytes (the journal's
/// pending write, or the file), its framing, its catalog verdict and its metadata.
///
/// `TimelineDirectory` reads every file through it, on the store's thread. It holds
/// only what that thread does not change while a caller of the store waits (the
/// directory, the journal and the catalog, which lock their own state, and
/// references to the subkeys and class D's key pair), so the threads of
/// `prefetchBodies` use it too while the store's thread waits for them: one path for
/// both, with the same verdicts.
struct SealedFileReader: @unchecked Sendable {
    /// The timelines directory.
    let directory: String
    /// Where writes land first; a pending record is the file's current content.
    let journal: Journal?
    /// Each widget's latest generation and deletion, authenticated.
    let ledger: GenerationLedger
    /// The device subkey that names files.
    let fileNameKey: SecureBytes
    /// The device subkey of every file's metadata section.
    let metadataKey: SecureBytes
    /// Class D's key pair (version-1 files seal their metadata key to it).
    let classD: KeyPair

    /// The index key of a widget's file: the digest its file name spells.
    func indexKey(for widget: WidgetID) throws(StoreError) -> FileDigest {
        try Self.indexKey(for: widget, fileNameKey: fileNameKey)
    }

    /// The index key of a widget's file under the subkey `fileNameKey`: a keyed hash of
    /// its id, never the id itself, so a hostile id cannot name a path and a directory
    /// listing reveals no widget.
    static func indexKey(for widget: WidgetID, fileNameKey: SecureBytes) throws(StoreError) -> FileDigest {
        // The digest is public (it names a file): plain memory, no secure allocation.
        // The id's bytes are laid out on the stack, not spelled as a String and copied
        // into an array: this runs for every widget a refresh pass reads, on the loop.
        let hashed: Result<FileDigest, CryptoError> = withIDBytes(widget) { id in
            withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { out in
                Result { () throws(CryptoError) in
                    try KeyedHash.publicHash(id, key: fileNameKey, into: out)
                    return FileDigest(digest: UnsafeRawBufferPointer(out))
                }
            }
        }
        return try crypto { () throws(CryptoError) in try hashed.get() }
    }

    /// Calls `body` with the bytes of `widget.description` (`PROVIDER/KIND[#INSTANCE]`,
    /// at most 255), laid out in a buffer on the stack.
    static func withIDBytes<R>(_ widget: WidgetID, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let count = widget.provider.utf8.count + 1 + widget.kind.utf8.count + (widget.instance.map { $0.utf8.count + 1 } ?? 0)
        return withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            var at = 0
            func put(_ text: String) {
                for byte in text.utf8 {
                    buffer[at] = byte
                    at += 1
                }
            }
            func put(_ byte: UInt8) {
                buffer[at] = byte
                at += 1
            }
            put(widget.provider)
            put(UInt8(ascii: "/"))
            put(widget.kind)
            if let instance = widget.instance {
                put(UInt8(ascii: "#"))
                put(instance)
            }
            return body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// Reads, parses and verifies a timeline file's header and metadata; also returns
    /// the file's size. `expected` nil accepts any widget whose own file name is `name`.
    /// `nil` when there is no such file, or the catalog says its widget was deleted.
    func readSealed(name: String, expected: WidgetID?) throws(StoreError) -> (TimelineFile.Sealed, TimelineMetadata, fileBytes: Int)? {
        try readSealed(name: name, key: FileDigest(fileName: name), expected: expected, nameIsExpected: false)
    }

    /// `readSealed(name:expected:)` for the file of `widget`, whose index key (`indexKey(for:)`)
    /// is `key`: its name is spelled once and not hashed again to check it, since the
    /// header must name `widget` and `key` is `widget`'s.
    func readSealed(key: FileDigest, of widget: WidgetID) throws(StoreError) -> (TimelineFile.Sealed, TimelineMetadata, fileBytes: Int)? {
        try readSealed(name: key.fileName, key: key, expected: widget, nameIsExpected: true)
    }

    private func readSealed(
        name: String, key: FileDigest?, expected: WidgetID?, nameIsExpected: Bool
    ) throws(StoreError) -> (TimelineFile.Sealed, TimelineMetadata, fileBytes: Int)? {
        let path = "\(directory)/\(name)"
        let bytes: [UInt8]
        if let journal, let key, let journaled = journal.pending(key) {
            // Written, durable in the journal, not folded into its file yet.
            bytes = journaled
        } else {
            guard let read = try fromFiles({ () throws(FileError) in try FileSystem.readFile(path, limit: TimelineFile.maximumFileBytes) }) else { return nil }
            bytes = read
        }
        let sealed = try fromFiles { () throws(FileError) in try TimelineFile.parse(bytes, expected: expected, file: path) }
        // A deleted widget's file put back (from a backup) is no widget's: ignored; so is
        // a journaled write the delete left in the journal (it recorded itself above it).
        if let key, try fromFiles({ () throws(FileError) in try ledger.verdict(key, generation: sealed.header.generation) }) == .deleted { return nil }
        // A file renamed onto another widget's name is not that widget's.
        if !nameIsExpected, try indexKey(for: sealed.header.widget).fileName != name { throw .corrupt(file: path, reason: .wrongWidget) }
        let metadata = try fromFiles { () throws(FileError) in
            try TimelineFile.openMetadata(sealed, metadataKey: metadataKey, classD: classD, file: path)
        }
        return (sealed, metadata, bytes.count)
    }

    /// Throws `rolledBack` if a file of `key` holding `generation` is older than the
    /// catalog's record: its body must not be served.
    func refuseIfRolledBack(_ key: FileDigest, generation: UInt64, file: String) throws(StoreError) {
        if try fromFiles({ () throws(FileError) in try ledger.verdict(key, generation: generation) }) == .rolledBack { throw .corrupt(file: file, reason: .rolledBack) }
    }
}
