import FoundationEssentials
import SecureMemory
import StoreFiles
import StoreKeys
import StoreLedger
import WidgetCrypto
import WidgetModel

/// The group-commit write pipeline: a batch of timeline writes is checked and numbered
/// on the store's thread (`prepareWrites`), sealed and made durable on any thread
/// (`commit`: the journal, or the files with one group commit), and applied back on the
/// store's thread (`finishWrites`: index, cache), after its writers are answered
/// (`CommittedWrites.results`).
extension TimelineStore {
    /// Replaces a widget's timeline and returns its new generation. Needs only public
    /// keys, so every class is writable in every state (a class whose secret key is
    /// held is wrapped under its class wrap key, one without by an exchange). `placeholder` nil keeps the
    /// stored one. The body is cached (class B marked open), except class A while
    /// locked and any class whose key is not held. `quota`, if given, bounds what the
    /// widget's provider stores with it.
    @discardableResult
    package func putTimeline(
        _ widget: WidgetID, protectionClass: ProtectionClass, family: String?, reloadDue: Date?, body: SecureBytes,
        placeholder: [UInt8]?, quota: ProviderQuota? = nil
    ) throws(StoreError) -> UInt64 {
        // A batch of one. The batch hands its body buffer to the cache; the caller's
        // stays the caller's, so the cache gets a copy.
        let write = TimelineWrite(
            widget: widget, protectionClass: protectionClass, family: family, reloadDue: reloadDue,
            body: try secureMemory { () throws(SecureMemoryError) in try body.copy() }, placeholder: placeholder, quota: quota)
        return try putTimelines([write])[0].get()
    }

    /// One timeline to store with `putTimelines(_:)`: the arguments of `putTimeline`.
    package struct TimelineWrite {
        package let widget: WidgetID
        package let protectionClass: ProtectionClass
        package let family: String?
        package let reloadDue: Date?
        package let body: SecureBytes
        package let placeholder: [UInt8]?
        /// What the widget's provider may store, this write included; `nil` is no bound.
        package let quota: ProviderQuota?

        /// A write; `placeholder` nil keeps the stored one.
        package init(
            widget: WidgetID, protectionClass: ProtectionClass, family: String?, reloadDue: Date?, body: SecureBytes,
            placeholder: [UInt8]?, quota: ProviderQuota? = nil
        ) {
            self.widget = widget
            self.protectionClass = protectionClass
            self.family = family
            self.reloadDue = reloadDue
            self.body = body
            self.placeholder = placeholder
            self.quota = quota
        }
    }

    /// Stores several timelines with one group commit: each succeeds or fails as
    /// `putTimeline` would, in order (a widget written twice gets two generations and
    /// keeps the second), but the files are synced together and the directory once.
    /// Returns each write's generation or error.
    ///
    /// The three steps, `prepareWrites`, `commit` and `finishWrites`, can also be taken
    /// apart, so that the sealing and the file I/O run off the store's thread.
    package func putTimelines(_ writes: [TimelineWrite]) -> [Result<UInt64, StoreError>] {
        finishWrites(Self.commit(prepareWrites(writes)))
    }

    /// A file of a batch: its key in the ledger, its name, and its sealed bytes (made on
    /// the committing thread). The key travels with the name, never parsed back from it.
    typealias SealedFile = (key: FileDigest, name: String, bytes: @Sendable () throws(FileError) -> [UInt8])

    /// A batch of writes checked and numbered on the store's thread, ready for
    /// `commit` on any thread.
    ///
    /// It holds the plaintext bodies (in `SecureBytes`) until it is released.
    package struct PreparedWrites: @unchecked Sendable {
        struct Staged {
            let index: Int
            /// The file's key in the ledger, and its name (`key.fileName`), computed once.
            let key: FileDigest
            let name: String
            let metadata: TimelineMetadata
            /// The size of the file it will be.
            let fileBytes: Int
            let body: SecureBytes
            let classKey: PublicKey
        }

        let writes: [TimelineWrite]
        /// The device's metadata subkey (a reference to the store's; not copied).
        let metadataKey: SecureBytes
        let staged: [Staged]
        /// The class wrap keys of the classes whose secret key (of the generation
        /// written) the store held when the batch was staged, by class public key: the
        /// batch's own copies, zeroed by `commit` once its files are sealed.
        let wrapKeys: [PublicKey: SecureBytes]
        let failures: [Int: StoreError]
        let directory: String
        let journal: Journal?
        /// Records the generations written straight into their files.
        let ledger: GenerationLedger

        /// How many writes the batch holds.
        package var count: Int { writes.count }

        /// How `item`'s body key is wrapped: under `wrapKeys[item.classKey]` if there is
        /// one, by an exchange otherwise.
        func wrapKind(_ item: Staged) -> TimelineFile.WrapKind {
            wrapKeys[item.classKey] == nil ? .exchange : .classKey
        }

        /// Whether `commit` is one append to the journal and its `fdatasync`, nothing
        /// more: no fold first, no files written in place. The loop commits only such a
        /// batch itself.
        package var isJournalAppendOnly: Bool {
            guard let journal else { return false }
            return journal.fitsWithoutFold(fileBytes: staged.map(\.fileBytes))
        }
    }

    /// What `commit` did with each staged file of a batch: `nil` if it is durable.
    package struct CommittedWrites: @unchecked Sendable {
        let prepared: PreparedWrites
        let outcomes: [StoreError?]

        /// Each write's generation or error, as `finishWrites` returns them: known as
        /// soon as the batch is durable, so that its writers are answered before the
        /// store applies it.
        package var results: [Result<UInt64, StoreError>] {
            var results = [Result<UInt64, StoreError>?](repeating: nil, count: prepared.writes.count)
            for (index, error) in prepared.failures { results[index] = .failure(error) }
            for (slot, item) in prepared.staged.enumerated() {
                results[item.index] = outcomes[slot].map { .failure($0) } ?? .success(item.metadata.generation)
            }
            return results.map { $0! }
        }
    }

    /// Checks each write against the limits and its provider's quota, numbers it (later
    /// writes of the same widget, in this batch or the next, build on its generation)
    /// and drops the widget's cached body, which the write replaces. Store state is
    /// touched only here and in `finishWrites`, both on the store's thread.
    ///
    /// A staged write is recorded in the index at once, so the next write's quota
    /// counts it (and a batch still committing); a write that then fails is indexed
    /// again from the disk. A quota is judged by the complete index, or before it by the
    /// usage the catalog's table gave at open and the files touched since (`isUsageKnown`); never
    /// by a partial index alone: without either, the first write with a quota completes
    /// the index (DESIGN: fail closed), however large the store.
    package func prepareWrites(_ writes: [TimelineWrite]) -> PreparedWrites {
        var staged: [PreparedWrites.Staged] = []
        var wrapKeys: [PublicKey: SecureBytes] = [:]
        var exchangeOnly: Set<PublicKey> = []
        var failures: [Int: StoreError] = [:]
        var indexing: StoreError?
        if !timelines.isUsageKnown, writes.contains(where: { $0.quota != nil }) {
            do throws(StoreError) { try timelines.indexAll() } catch { indexing = error }
        }
        for (index, write) in writes.enumerated() {
            do throws(StoreError) {
                if write.quota != nil, let indexing { throw indexing }
                let c = write.protectionClass
                let classKey = custody.keybag.publicKey(c)
                // Derived once per class in a batch, while the secret key is held; the
                // files of a class locked (or purged) are wrapped by an exchange.
                if wrapKeys[classKey] == nil, !exchangeOnly.contains(classKey) {
                    if let key = custody.classWrapKey(c, generation: custody.keybag.writeGeneration(c)) {
                        wrapKeys[classKey] = key
                    } else {
                        exchangeOnly.insert(classKey)
                    }
                }
                let wrap: TimelineFile.WrapKind = wrapKeys[classKey] == nil ? .exchange : .classKey
                let (key, metadata, fileBytes) = try stageForWrite(write, wrap: wrap)
                let name = key.fileName
                timelines.touch(key, widget: write.widget)
                // Later writes of the same widget build on this generation.
                timelines.record(key, metadata, fileBytes: fileBytes)
                staged.append(PreparedWrites.Staged(
                    index: index, key: key, name: name, metadata: metadata, fileBytes: fileBytes, body: write.body,
                    classKey: classKey))
            } catch {
                failures[index] = error
            }
        }
        writesInFlight += 1
        return PreparedWrites(
            writes: writes, metadataKey: custody.subkeys.timelineMetadata, staged: staged, wrapKeys: wrapKeys,
            failures: failures,
            directory: timelines.path, journal: journal, ledger: timelines.ledger)
    }

    /// Seals each staged write's file and replaces the files with one group commit.
    /// Pure: touches no store state, so it may run on any thread.
    ///
    /// Each file has its own fresh body key. A class whose secret key the store held
    /// at staging wraps them under its class wrap key (`prepared.wrapKeys`: no X25519);
    /// the files of any other class share one key-encryption key, agreed by one
    /// ephemeral X25519 exchange with the class public key (two operations per class
    /// in the batch instead of four per file). The wrap keys and KEKs are zeroed as
    /// soon as every file is sealed and written.
    package static func commit(_ prepared: PreparedWrites) -> CommittedWrites {
        let wrapKeys = prepared.wrapKeys
        defer {
            for key in wrapKeys.values { key.zeroInPlace() }
        }
        var agreed: [PublicKey: Result<KeyEncryptionKey, FileError>] = [:]
        for item in prepared.staged where wrapKeys[item.classKey] == nil && agreed[item.classKey] == nil {
            agreed[item.classKey] = Result { () throws(FileError) in
                try FileError.crypto { () throws(CryptoError) in try KeyEncryptionKeySupply.shared.take(for: item.classKey) }
            }
        }
        let keks = agreed
        defer {
            for case .success(let kek) in keks.values { kek.zero() }
        }
        let metadataKey = prepared.metadataKey
        let files = prepared.staged.map { item in
            (key: item.key, name: item.name, bytes: { @Sendable () throws(FileError) -> [UInt8] in
                let wrap: TimelineFile.BodyWrap
                if let wrapKey = wrapKeys[item.classKey] {
                    wrap = .classKey(wrapKey)
                } else {
                    // A class whose exchange failed fails its own files only.
                    wrap = .exchange(try keks[item.classKey]!.get())
                }
                return try TimelineFile.KeyScratch.pool.withScratch { (keys) throws(FileError) in
                    try FileError.crypto { () throws(CryptoError) in
                        try TimelineFile.encode(item.metadata, body: item.body, wrap: wrap, metadataKey: metadataKey, keys: keys)
                    }
                }
            })
        }
        let generations = prepared.staged.map(\.metadata.generation)
        let outcomes: [StoreError?]
        if let journal = prepared.journal {
            outcomes = journaled(files, into: journal, generations: generations, prepared: prepared)
        } else {
            outcomes = replaced(files, generations: generations, prepared: prepared)
        }
        return CommittedWrites(prepared: prepared, outcomes: outcomes)
    }

    /// Replaces each file in place with one group commit, then records their
    /// generations in the catalog durably (a failure to do so fails the batch: its
    /// files would escape the rollback check).
    private static func replaced(
        _ files: [SealedFile], generations: [UInt64],
        prepared: PreparedWrites
    ) -> [StoreError?] {
        do throws(FileError) {
            let outcomes = try writeDirectly(
                files, generations: generations, sizes: prepared.staged.map(\.fileBytes), prepared: prepared)
            return outcomes.map { $0.map(StoreError.init) }
        } catch {
            return Array(repeating: StoreError(error), count: files.count)
        }
    }

    /// Writes files straight into place (one group commit), records the generation of
    /// each written in the catalog and saves it if any was, as one change of files that
    /// the catalog's usage table follows (`GenerationLedger.changeFiles`): each file's
    /// previous share is judged before it is replaced, its new one (`sizes`) counted;
    /// a file that failed may be either, so the usage is then unknown.
    private static func writeDirectly(
        _ files: [SealedFile], generations: [UInt64], sizes: [Int],
        prepared: PreparedWrites
    ) throws(FileError) -> [FileError?] {
        let (ledger, directory, metadataKey) = (prepared.ledger, prepared.directory, prepared.metadataKey)
        // Every name in a batch is one the store made, each its widget's.
        let widgets = Dictionary(prepared.staged.map { ($0.name, Array($0.metadata.widget.description.utf8)) }) { first, _ in first }
        var outcomes: [FileError?] = []
        var written = false
        try ledger.changeFiles(withholding: true, { () throws(FileError) -> UsageChange in
            var change = UsageChange()
            var judged = Set<String>()
            for file in files where judged.insert(file.name).inserted {
                let previous = (try? FileSystem.readFile("\(directory)/\(file.name)", limit: TimelineFile.maximumFileBytes)) ?? nil
                change.removing(
                    previous, key: file.key, expected: widgets[file.name]?[...], ledger: ledger,
                    metadataKey: metadataKey)
            }
            outcomes = try FileSystem.writeAtomically(directory: directory, sealing: files.map { ($0.name, $0.bytes) })
            // A name written twice in the batch holds its last write.
            var last: [String: Int] = [:]
            for (index, file) in files.enumerated() { last[file.name] = index }
            for (index, file) in files.enumerated() {
                if outcomes[index] != nil { change.lose() }
                guard outcomes[index] == nil else { continue }
                ledger.record(file.key, generation: generations[index])
                written = true
                if last[file.name] == index, let widget = widgets[file.name] {
                    change.adding(widget: widget[...], fileBytes: sizes[index])
                }
            }
            return change
        }, thenSave: { () throws(FileError) in
            if written { try ledger.save() }
        })
        return outcomes
    }

    /// Seals each file and appends the batch to the journal with one `fdatasync`. A
    /// batch too large for the journal is written into its files instead, after a fold,
    /// so that no older journaled write of theirs can replay over them.
    private static func journaled(
        _ files: [SealedFile], into journal: Journal,
        generations: [UInt64], prepared: PreparedWrites
    ) -> [StoreError?] {
        var outcomes = [StoreError?](repeating: nil, count: files.count)
        var batch: [(key: FileDigest, bytes: [UInt8])] = []
        var slots: [Int] = []
        for (slot, file) in files.enumerated() {
            do throws(FileError) {
                batch.append((file.key, try file.bytes()))
                slots.append(slot)
            } catch {
                outcomes[slot] = StoreError(error)
            }
        }
        // Sealed: the batch's copies of the class wrap keys go before the sync, so that a
        // lock while it syncs (which waits for no commit) leaves none held that long.
        for key in prepared.wrapKeys.values { key.zeroInPlace() }
        guard !batch.isEmpty else { return outcomes }
        do throws(FileError) {
            if try journal.append(batch) { return outcomes }
            try journal.fold()
            let direct = try writeDirectly(
                batch.map { file in
                    (key: file.key, name: file.key.fileName, bytes: { @Sendable () throws(FileError) -> [UInt8] in file.bytes })
                },
                generations: slots.map { generations[$0] }, sizes: batch.map(\.bytes.count), prepared: prepared)
            for (slot, error) in zip(slots, direct) { outcomes[slot] = error.map(StoreError.init) }
        } catch {
            for slot in slots { outcomes[slot] = StoreError(error) }
        }
        return outcomes
    }

    /// Applies a committed batch: indexes each written file (or, after a failure, what
    /// is on disk), caches the bodies, and returns each write's generation or error.
    package func finishWrites(_ committed: CommittedWrites) -> [Result<UInt64, StoreError>] {
        let prepared = committed.prepared
        writesInFlight -= 1
        // Taken again as soon as there is room, before another write can take it.
        if !reserve.isHeld { reserve.replenish() }
        for (slot, item) in prepared.staged.enumerated() {
            let write = prepared.writes[item.index]
            // A delete while it committed recorded itself above it: deleted, not written.
            let deleted = (try? timelines.ledger.verdict(item.key, generation: item.metadata.generation)) == .deleted
            if committed.outcomes[slot] != nil || deleted {
                timelines.reindexFromDisk(item.key, widget: write.widget)
                continue
            }
            timelines.record(item.key, item.metadata, fileBytes: item.fileBytes)
            if shouldCacheWrite(write.protectionClass), cache.admits(write.body) {
                // The write's own buffer becomes the cached body: no second secure copy.
                // A later write of the same widget in this batch replaces it.
                cache.insert(
                    write.widget, body: write.body, protectionClass: write.protectionClass, generation: item.metadata.generation,
                    isOpen: write.protectionClass == .completeUnlessOpen)
            }
        }
        return committed.results
    }

    /// Checks one write against the limits and its quota and numbers it; drops the
    /// widget's cached body, which the write replaces. Returns the file's key,
    /// metadata and size.
    private func stageForWrite(
        _ write: TimelineWrite, wrap: TimelineFile.WrapKind
    ) throws(StoreError) -> (FileDigest, TimelineMetadata, Int) {
        // A lost catalog not rebuilt yet has no generation to number a write above.
        guard !awaitingPasscodeToRebuildLedger else { throw .protectedDataUnavailable }
        guard write.body.count <= configuration.maxTimelineBytes else { throw .tooLarge(limit: configuration.maxTimelineBytes) }
        if let placeholder = write.placeholder, placeholder.count > configuration.maxPlaceholderBytes {
            throw .tooLarge(limit: configuration.maxPlaceholderBytes)
        }
        if let family = write.family, family.utf8.count > TimelineFile.maximumFamilyBytes {
            throw .tooLarge(limit: TimelineFile.maximumFamilyBytes)
        }
        let key = try timelines.indexKey(for: write.widget)
        let previous = try? timelines.indexedMetadata(key: key, widget: write.widget)
        var metadata = TimelineMetadata(
            widget: write.widget, protectionClass: write.protectionClass, family: write.family,
            generation: max(previous?.generation ?? 0, try fromFiles({ () throws(FileError) in try timelines.ledger.lastGeneration(key) })) + 1, reloadDue: write.reloadDue,
            placeholder: write.placeholder ?? previous?.placeholder)
        // Sealed to the newest class keys (`classKey` below is theirs).
        metadata.keyGeneration = custody.keybag.writeGeneration(write.protectionClass)
        let fileBytes = TimelineFile.encodedCount(metadata, bodyCount: write.body.count, wrap: wrap)
        if let quota = write.quota { try check(quota, key: key, widget: write.widget, fileBytes: fileBytes) }
        cache.remove(write.widget)
        return (key, metadata, fileBytes)
    }

    /// Throws unless the widget's provider stays within `quota` once file `key` is
    /// `fileBytes` long: a new widget counts one more, a replacement only its change
    /// in size. Damaged files count for nobody (they prove no owner).
    private func check(_ quota: ProviderQuota, key: FileDigest, widget: WidgetID, fileBytes: Int) throws(StoreError) {
        if !timelines.isUsageKnown { try timelines.indexAll() }
        let usage = timelines.usage(of: widget.provider) ?? timelines.index.usage(of: widget.provider)
        let previous = timelines.index.fileBytes(key, widget: widget)
        if previous == nil, usage.widgets + 1 > quota.maxWidgets { throw .tooManyWidgets(limit: quota.maxWidgets) }
        if usage.bytes - (previous ?? 0) + fileBytes > quota.maxBytes { throw .tooLarge(limit: quota.maxBytes) }
    }

    /// What `provider`'s stored timelines take, by the index (exact once it is complete).
    private func shouldCacheWrite(_ c: ProtectionClass) -> Bool {
        switch c {
        case .completeUnlessOpen:
            // Written while locked, or while unlocked: open either way (DESIGN §3).
            true
        case .complete:
            // Nothing of class A may outlive a lock plus its grace period.
            custody.lifecycle.state == .unlocked && custody.lifecycle.isAvailable(.complete)
        case .completeUntilFirstUserAuthentication, .none:
            custody.lifecycle.isAvailable(c)
        }
    }

}
