import FoundationEssentials
import Glibc
import SecureMemory
import StoreAnchor
import StoreFiles
import StoreKeys
import StoreLedger
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX

/// The encrypted timeline store, behind the interface the daemon calls: a thin facade
/// over its owned parts — key custody (`KeyCustody`: device key, keybag, lifecycle),
/// the timelines (`TimelineDirectory`: names, index, placeholders, verification, over
/// the generation ledger), the write pipeline (`WritePipeline.swift`: group commit, journal),
/// the plaintext cache, reads, deletion, settings and the wipe that ties them.
///
/// Threading: single-threaded. Its owner (the daemon's event loop) calls it from one
/// thread; only `PasscodeDerivation.derive`, `PasscodeChange.derive` and the static
/// `commit` (a group commit's sealing and journal append) may run elsewhere. Time is
/// always a parameter (`now`), so tests move it forward without sleeping.
///
/// State directory layout: `device.key` (unless the device key comes from elsewhere,
/// `DeviceKeySource`), `keybag`, `settings`, `catalog` (each widget's latest generation
/// and deletion, authenticated: `GenerationLedger`), `journal` (the write-ahead journal,
/// `Journal`), `timelines/<hex>.wtl` where `<hex>` is a keyed BLAKE2b of the widget id
/// under a device subkey: file names reveal nothing about which widgets exist. One
/// store per directory at a time (the daemon holds a `StateDirectoryLock`).
///
/// Wipe: after `wipe()` the store behaves as freshly created (new device key unless
/// its source cannot destroy it, new class keys, no passcode, unlocked, no timelines).
/// It first renames `timelines/` to `timelines.wiped/`, so that a crash in the middle
/// is finished at the next open (`OpenReport.finishedInterruptedWipe`).
///
/// What an open found and did for its owner to report is one value, `openReport`.
package final class TimelineStore {
    let stateDirectory: String
    let timelinesDirectory: String
    /// The tunables; settable at any time (SIGHUP) without touching released keys.
    package var configuration: StoreConfiguration {
        didSet {
            cache.limit = configuration.maxCachedTimelines
            cache.requireLockedMemory = configuration.requireLockedMemory
            custody.configuration = configuration
        }
    }

    let custody: KeyCustody
    let timelines: TimelineDirectory
    /// Anchors the keybag and the catalog to the rollback counter (none in software mode).
    let anchor: RollbackAnchor
    var cache: PlaintextCache
    /// Where writes land first (`nil`: straight into their files).
    var journal: Journal? {
        didSet { timelines.journal = journal }
    }
    let journalCapacity: Int
    let journalFolding: JournalFolding
    /// Room held back for a delete on a full file system (`SpaceReserve`).
    let reserve: SpaceReserve
    /// Batches prepared and not finished yet. While one is in flight no key generation
    /// is dropped: a write that fails leaves the previous file, perhaps sealed to one.
    var writesInFlight = 0
    /// Whether a passcode judgement is out (`judgeUnlock`, `judgeSetPasscode`) and its
    /// keybag may be being written elsewhere: until it is complete, no other keybag is
    /// saved (the fold drops no key generation) and the caller runs no wipe.
    package internal(set) var isJudging = false

    /// Opens (or creates) the store in `stateDirectory`, its device key from the state
    /// directory or the systemd credential (`FileDeviceKeySource`). See
    /// `init(stateDirectory:deviceKeySource:passcodeVerifier:rollbackCounter:configuration:journalCapacity:journalFolding:startOver:now:)`.
    ///
    /// - Parameter credentialsDirectory: `$CREDENTIALS_DIRECTORY`; its `device-key` is used when present.
    package convenience init(
        stateDirectory: String, credentialsDirectory: String?, configuration: StoreConfiguration = StoreConfiguration(),
        journalCapacity: Int = TimelineStore.defaultJournalCapacity, journalFolding: JournalFolding = .inBackground,
        startOver: Bool = false, now: Date
    ) throws(StoreError) {
        try self.init(
            stateDirectory: stateDirectory,
            deviceKeySource: FileDeviceKeySource(stateDirectory: stateDirectory, credentialsDirectory: credentialsDirectory),
            configuration: configuration, journalCapacity: journalCapacity, journalFolding: journalFolding,
            startOver: startOver, now: now)
    }

    /// Opens (or creates) the store in `stateDirectory`. Like a reboot: with a passcode
    /// set the state is `beforeFirstUnlock` and only class D is available.
    ///
    /// - Parameters:
    ///   - deviceKeySource: where the device key is kept (and destroyed at a wipe).
    ///   - passcodeVerifier: where passcode attempts are verified and counted beyond the
    ///     files (the TPM in tpm2 mode); `nil`, the default, verifies by the keybag alone.
    ///   - rollbackCounter: the counter outside the state directory that anchors the
    ///     keybag and the catalog (a TPM NV counter, DESIGN §9); `nil` (software mode)
    ///     anchors nothing. A keybag or catalog older than it is refused (`rolledBack`),
    ///     and a counter that fails is an error, never a fall back to running without.
    ///   - journalCapacity: the size of each of the write-ahead journal's two regions
    ///     (`Journal`); 0 writes every timeline straight into its file.
    ///   - journalFolding: where a full region is folded (`JournalFolding`).
    ///   - startOver: what to do when the keybag is missing while timeline files or
    ///     journaled writes remain (they cannot be read without it): `false` (the
    ///     default) throws `keybagMissing` and changes nothing; `true` erases them and
    ///     makes a new keybag (`openReport.startedOver` then says what went). An
    ///     explicit act of an administrator (`widgetd --start-over`), never a default:
    ///     a silent reset would start unlocked, without the passcode, under the device
    ///     key only.
    ///     With the keybag present and the catalog lost, `true` opens the store to
    ///     rebuild the catalog from the timeline files once the passcode proves the
    ///     keybag (`awaitingPasscodeToRebuildLedger`, `rebuildLedger`).
    ///   - now: the current time (reserved for time-based recovery; nothing is due at open).
    ///
    /// A keybag without its catalog is refused (`ledgerMissing`) unless `startOver`, and so is a catalog
    /// that fails authentication (`corrupt`): nothing is served rather than every file
    /// without the rollback check, since either is what removing or damaging the catalog
    /// to let an old file pass looks like.
    package init(
        stateDirectory: String, deviceKeySource: any DeviceKeySource, passcodeVerifier: (any PasscodeVerifier)? = nil,
        rollbackCounter: (any RollbackCounter)? = nil,
        configuration: StoreConfiguration = StoreConfiguration(),
        journalCapacity: Int = TimelineStore.defaultJournalCapacity, journalFolding: JournalFolding = .inBackground,
        startOver: Bool = false, now: Date
    ) throws(StoreError) {
        self.stateDirectory = stateDirectory
        self.journalCapacity = journalCapacity
        self.journalFolding = journalFolding
        let timelinesPath = "\(stateDirectory)/timelines"
        self.timelinesDirectory = timelinesPath
        self.reserve = SpaceReserve(stateDirectory: stateDirectory)
        self.configuration = configuration
        self.cache = PlaintextCache(
            limit: configuration.maxCachedTimelines, requireLockedMemory: configuration.requireLockedMemory)
        let anchor = RollbackAnchor(counter: rollbackCounter)
        self.anchor = anchor
        let (finishedWipe, erased) = try Self.prepareStateDirectory(
            stateDirectory, timelines: timelinesPath, deviceKeySource: deviceKeySource, anchor: anchor, startOver: startOver)
        // The timelines directory's leftovers go when indexing has read it (in slices,
        // after the daemon is ready): reading every stored timeline's name must not delay opening.
        custody = try fromKeys { () throws(KeyError) in
            try KeyCustody(
                stateDirectory: stateDirectory, source: deviceKeySource, verifier: passcodeVerifier, anchor: anchor,
                configuration: configuration,
                beforeSavingKeybag: { (subkeys, migrated, anchors) throws(KeyError) in
                    try throughFiles { () throws(FileError) in
                        try Self.makeLedger(
                            stateDirectory: stateDirectory, timelines: timelinesPath, subkeys: subkeys, anchor: anchor,
                            fromFiles: migrated, carrying: anchors)
                    }
                })
        }
        let ledgerPath = "\(stateDirectory)/\(GenerationLedger.fileName)"
        let ledger: GenerationLedger
        var ledgerLost = false
        let ledgerMAC = custody.subkeys.ledgerMAC
        if let loaded = try fromFiles({ () throws(FileError) in
            try GenerationLedger.load(stateDirectory: stateDirectory, macKey: ledgerMAC, anchor: anchor)
        }) {
            ledger = loaded
        } else {
            // The catalog alone is lost: rebuilt from the files on --start-over, once
            // the passcode proves the keybag (`rebuildLedger`); until then it is an
            // empty one in memory, never saved, and nothing but placeholders is served.
            guard startOver else { throw .ledgerMissing(path: ledgerPath) }
            ledger = GenerationLedger.empty(stateDirectory: stateDirectory, macKey: custody.subkeys.ledgerMAC, anchor: anchor)
            ledgerLost = true
        }
        timelines = TimelineDirectory(path: timelinesDirectory, custody: custody, ledger: ledger)
        // Before anything is folded or served: a keybag or catalog older than the
        // counter is refused here, and an anchor cut short by a crash is caught up.
        var report = OpenReport()
        let (keybagAnchors, keybagPath) = (custody.keybag.anchors, custody.keybagPath)
        report.caughtUpRollbackCounter = try fromAnchor { () throws(AnchorError) in
            try anchor.check(
                keybag: keybagAnchors, catalog: ledger.loadedAnchors, keybagPath: keybagPath,
                ledgerPath: ledgerPath, adoptUnanchored: startOver, ledgerLost: ledgerLost)
        }
        custody.roomOnFullDisk = { [reserve] in reserve.release() }
        report.finishedInterruptedWipe = finishedWipe
        report.startedOver = erased
        openReport = report
        isFresh = custody.created
        timelines.writesInFlight = { [unowned self] in writesInFlight > 0 }
        openState = StoreOpenState(ledgerLost: ledgerLost, awaitingAnchor: anchor.isAwaitingProof)
        if awaitingPasscodeToRebuildLedger {
            // The journal stays closed until the rebuild (which opens it): its fold would
            // save the catalog.
            if !custody.keybag.passcodeSet { try take(.noPasscodeToProve) }
            reportOpened()
            return
        }
        if !custody.keybag.passcodeSet { try take(.noPasscodeToProve) }
        if anchor.isAnchoring, !anchor.isAwaitingProof, anchor.current == .none {
            // Files made before anchors, on a counter never incremented: anchored now.
            try fromKeys { () throws(KeyError) in
                try custody.anchorUnanchored { (values) throws(KeyError) in
                    try throughFiles { () throws(FileError) in try ledger.save(carrying: values) }
                }
            }
        }
        // Folds what a crash left in the journal into the files before anything reads them.
        journal = try openJournal()
        timelines.journal = journal
        if let journal, journal.unfoldedAtOpen != nil {
            // Not folded (a full disk): served from the journal, and indexed from there,
            // since a widget written only there has no file the index would find.
            for key in journal.pendingKeys { _ = try? timelines.verify(name: key.fileName, key: key, widget: nil) }
        } else if let usage = ledger.foldedUsage {
            // The catalog's table follows the files as folded, the replay just now included:
            // known unless a change it could not judge (or a catalog made from files) lost it.
            // (Not with records left unfolded, which it does not count: the first write
            // with a quota then reads every file, as without a table.)
            timelines.startUsage(from: usage)
        }
        reserve.replenish()
        reportOpened()
    }

    /// What this open found and did that its owner reports (see `OpenReport`); taken
    /// when the open ends and not changed after.
    package internal(set) var openReport = OpenReport()

    /// Whether the store waits for its passcode to prove the keybag (`StoreOpenState`).
    package internal(set) var openState = StoreOpenState(ledgerLost: false, awaitingAnchor: false)

    /// Whether the catalog was lost alone and `--start-over` opened the store to rebuild
    /// it from the timeline files: until the first unlock with the passcode, nothing but
    /// metadata and placeholders is served, writes and deletes are refused
    /// (`protectedDataUnavailable`), and nothing is saved but the keybag's count.
    package var awaitingPasscodeToRebuildLedger: Bool { openState.state == .awaitingProofToRebuildLedger }

    /// What the rebuild of a lost catalog found, once done (see `rebuildLedger`).
    package internal(set) var rebuiltLedger: LedgerRebuild?

    /// Whether this store's keybag was made by this open or the last `wipe()` (a new
    /// state directory, a start over, an erase): nothing of an earlier store is here,
    /// so a missing settings file means the documented defaults, not a lost file.
    package private(set) var isFresh: Bool

    /// Where `wipe()` sets the timelines aside before it destroys the keys.
    private var wipedTimelinesDirectory: String { Self.wipedTimelinesDirectory(stateDirectory) }

    static func wipedTimelinesDirectory(_ stateDirectory: String) -> String {
        "\(stateDirectory)/timelines.wiped"
    }

    /// Whether a rollback counter anchors the keybag and the catalog
    /// (`GetStatus.protection.rollback` `tpm2`; otherwise only the catalog guards files).
    package var isRollbackAnchored: Bool { anchor.isAnchoring }

    /// The journal's size unless the caller says otherwise: about a thousand writes of
    /// 3 KiB between folds.
    package static let defaultJournalCapacity = Journal.defaultCapacity

    /// Who hears of a refused entry and a rebuilt catalog, to log them.
    package var reporter: (any StoreEventReporter)? {
        get { timelines.reporter }
        set { timelines.reporter = newValue }
    }

    /// Why the store runs without its journal although one was asked for (a full disk
    /// at open), or `nil`.
    package internal(set) var journalUnavailable: StoreError?

    /// How many journaled writes the open found and folded into their files: writes
    /// acknowledged before a crash (or a stop) that had not reached their files yet.
    package var recoveredJournalRecords: Int { journal?.recoveredRecords ?? 0 }

    /// Why the open could not fold the journaled writes it found (no space left on the
    /// file system), or `nil`. They stay in the journal and are served from there; the
    /// next fold with room (a full region, an orderly stop, the next start) writes them
    /// into their files. Until then what does not fit in the journal fails cleanly.
    package var journalUnfoldedAtOpen: StoreError? { journal?.unfoldedAtOpen.map(StoreError.init) }

    /// Folds the journal into the timeline files now (each widget's newest write once)
    /// and empties it; an orderly stop calls this so the files alone hold everything.
    /// The catalog is anchored to the rollback counter by the fold, or here if the fold
    /// had nothing to do and the catalog was saved since its last anchor.
    ///
    /// When every provider's usage is known and no write is in flight, the catalog's
    /// last save carries it (`GenerationLedger.save(usage:)`), replacing the table the
    /// catalog kept through the folds (which may count too much, or have been lost).
    ///
    /// Then drops the key generations no file is sealed to any more (see `keyGenerationsInUse`).
    package func foldJournal() throws(StoreError) {
        try fromFiles { () throws(FileError) in try journal?.fold() }
        if writesInFlight == 0, !awaitingPasscodeToRebuildLedger, let usage = timelines.usageTable {
            try fromFiles { () throws(FileError) in try timelines.ledger.save(usage: usage) }
        } else {
            try fromFiles { () throws(FileError) in try timelines.ledger.anchorIfSavedSince() }
        }
        guard !isJudging, let inUse = keyGenerationsInUse else { return }
        _ = try fromKeys { () throws(KeyError) in try custody.dropGenerations(notIn: inUse) }
    }

    /// The key generations the store's files (and pending writes) are sealed to, or
    /// `nil` while that is not known: the index has not verified every file yet, or a
    /// batch of writes is in flight. Known, it lets the keybag drop the others.
    var keyGenerationsInUse: Set<Keybag.Generation>? {
        guard !awaitingPasscodeToRebuildLedger, timelines.isComplete, writesInFlight == 0 else { return nil }
        return timelines.index.keyGenerationsInUse
    }

    /// The key generations the keybag holds, oldest first (for tests of the rotation).
    var keyGenerations: [Keybag.Generation] { custody.keybag.generationNumbers }

    // MARK: State

    /// `beforeFirstUnlock`, `unlocked` or `locked`.
    package var deviceState: DeviceState { custody.lifecycle.state }

    /// Whether a passcode is set (otherwise there is no data protection).
    package var passcodeSet: Bool { custody.keybag.passcodeSet }

    /// What holds the device key (`GetStatus.protection.deviceKey`).
    package var deviceKeyKind: DeviceKeyKind { custody.deviceKey.kind }

    /// What counts failed passcode attempts (`GetStatus.protection.attempts`).
    package var attemptCounting: AttemptCounting { custody.attemptCounting }

    /// Whether the secret key of class `c` is held now (class `none` always is).
    package func isKeyAvailable(_ c: ProtectionClass) -> Bool { custody.lifecycle.isAvailable(c) }

    /// Consecutive failed unlock attempts (survives restarts).
    package var failedAttempts: Int { custody.keybag.failedAttempts }

    /// Seconds until the next unlock attempt is allowed, or `nil` if it is allowed now.
    package func retryAfter(now: ClockReading) -> Double? { custody.retryAfter(now: now) }

    /// When `advance(to:)` must next be called (the class-A purge, on the monotonic
    /// clock: a grace is a duration), or `nil` if nothing is pending.
    package var nextDeadline: MonotonicInstant? { custody.lifecycle.classAPurgeDue }

    /// The locks so far. A caller that queues an unlock notes it when the call arrives
    /// and passes it to `beginUnlock(now:lockEpoch:)`, so that a Lock after the arrival
    /// wins even over an unlock that had not begun yet. Kept across `wipe()`.
    package var lockEpoch: LockEpoch { custody.lockEpoch }

    // MARK: Wipe

    /// Crypto-erase: destroys the keybag (the only copy of the wrapped class secrets)
    /// and the device key its source keeps, removes every timeline and the settings,
    /// and zeroes the cache. Then starts afresh: new keys, no passcode, unlocked.
    ///
    /// A device key its source cannot destroy (a systemd credential) stays; the erase
    /// still holds because the class secrets are gone with the keybag.
    package func wipe() throws(StoreError) {
        precondition(!isJudging, "a wipe while a passcode judgement's keybag may be being written")
        // First, one durable rename takes every timeline out of the store: from here on
        // a crash is finished at the next open (`finishWipe`), not taken for a keybag
        // lost beside its timelines, nor for a store still to be served.
        guard rename(timelinesDirectory, wipedTimelinesDirectory) == 0 else {
            throw .io(operation: "rename", path: timelinesDirectory, errno: .current)
        }
        try fromFiles { () throws(FileError) in try FileSystem.syncDirectory(stateDirectory) }
        // Then: a journaled write must not come back after the erase.
        try fromFiles { () throws(FileError) in try journal?.discard() }
        // Closed (and unlocked) now: it is opened again under the new device key below.
        journal = nil
        // Made for the class keys the erase destroys.
        KeyEncryptionKeySupply.shared.removeAll()
        cache.removeAll()
        timelines.removeAll(empty: false)
        try Self.finishWipe(
            stateDirectory: stateDirectory, deviceKeySource: custody.source, anchor: anchor, removingJournal: false)
        try fromFiles { () throws(FileError) in try FileSystem.makeDirectory(timelinesDirectory) }
        try fromFiles { () throws(FileError) in try FileSystem.syncDirectory(stateDirectory) }
        // Every file is gone, so the empty index covers the directory.
        timelines.removeAll(empty: true)
        try fromKeys { () throws(KeyError) in try custody.reopen() }
        timelines.ledger = try Self.loadLedger(stateDirectory: stateDirectory, subkeys: custody.subkeys, anchor: anchor)
        try take(.wiped)
        isFresh = true
        // Under the new device key's subkey (the discarded one is empty).
        journal = try openJournal()
    }

    // MARK: Timelines

    /// A class public key, for tests that write files as the shipped version did.
    func classPublicKey(_ c: ProtectionClass) -> PublicKey { custody.keybag.publicKey(c) }

    /// What `provider`'s stored timelines take, as its quota is judged: by the index once
    /// complete, else by the usage the catalog's table gave at open and the files touched
    /// since; when neither is known (`isUsageKnown` false), of the files indexed so far.
    package func usage(of provider: String) -> ProviderUsage {
        timelines.usage(of: provider) ?? timelines.index.usage(of: provider)
    }

    /// Whether every provider's usage is known without reading the rest of the store:
    /// the index is complete, or the catalog's head carried a usage table (after an
    /// orderly stop or a crash alike: `GenerationLedger.foldedUsage`). A write with a
    /// quota is then judged at once; otherwise it completes the index first.
    package var isUsageKnown: Bool { timelines.isUsageKnown }

    /// A widget's body, from the cache or decrypted (and then cached). Throws
    /// `protectedDataUnavailable` when its class key is not held, unless the body is
    /// an open class-B one and `allowOpenClassB` (the caller is its own provider).
    /// The caller owns the returned copy.
    package func readBody(_ widget: WidgetID, allowOpenClassB: Bool) throws(StoreError) -> SecureBytes {
        // No body passes before a lost catalog is rebuilt: none can be told rolled back.
        guard !awaitingPasscodeToRebuildLedger else { throw .protectedDataUnavailable }
        if let entry = cache.entry(widget) {
            let readable =
                custody.lifecycle.isAvailable(entry.protectionClass)
                || (entry.protectionClass == .completeUnlessOpen && entry.isOpen && allowOpenClassB)
            guard readable else { throw .protectedDataUnavailable }
            return try secureMemory { () throws(SecureMemoryError) in try entry.body.copy() }
        }
        let key = try timelines.indexKey(for: widget)
        let name = key.fileName
        let path = "\(timelinesDirectory)/\(name)"
        // Always verified from disk: the metadata index is no proof of the body.
        guard let (sealed, metadata, _) = try timelines.reader.readSealed(key: key, of: widget) else { throw .widgetNotFound }
        try timelines.refuseIfRolledBack(key, generation: metadata.generation, file: path)
        // Verified with the body: a presentation that then needs it reads no file again.
        timelines.setPlaceholder(key, metadata.placeholder, generation: metadata.generation)
        guard let pair = custody.keyPair(metadata.protectionClass, generation: metadata.keyGeneration) else {
            guard custody.lifecycle.isAvailable(metadata.protectionClass) else { throw .protectedDataUnavailable }
            // The class is released, but not the generation this file is sealed to: the
            // keybag is older than the file (restored from a backup). It opens nothing
            // written after it was replaced (DESIGN §9).
            throw .corrupt(file: path, reason: .unknownKeyGeneration)
        }
        let body = try fromFiles { () throws(FileError) in try TimelineFile.openBody(sealed, classKey: pair, file: path) }
        // Not cached in memory that could not be locked: decrypted again next time, and
        // the caller's buffer is the only copy, gone with its request.
        guard cache.admits(body) else { return body }
        let copy = try secureMemory { () throws(SecureMemoryError) in try body.copy() }
        cache.insert(
            widget, body: body, protectionClass: metadata.protectionClass, generation: metadata.generation,
            isOpen: metadata.protectionClass == .completeUnlessOpen)
        return copy
    }

    /// A widget's metadata and placeholder, in every state; `nil` if none is stored.
    ///
    /// Verified from disk the first time, then served from memory (the store is the
    /// only writer of its directory); the placeholder, which the index does not keep,
    /// comes from a small cache or is read back from the file and verified again.
    package func metadata(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata? {
        try timelines.indexedMetadata(key: try timelines.indexKey(for: widget), widget: widget)
    }

    /// A widget's metadata without its placeholder (`placeholder` is nil), in every
    /// state; `nil` if none is stored. Served from memory once the file is indexed:
    /// for callers that may not need the placeholder (read it with `metadata(_:)`).
    package func metadataWithoutPlaceholder(_ widget: WidgetID) throws(StoreError) -> TimelineMetadata? {
        try timelines.indexedMetadata(key: try timelines.indexKey(for: widget), widget: widget, includingPlaceholder: false)
    }

    /// Every stored timeline's metadata without its placeholder (`placeholder` is nil:
    /// read it with `metadata(_:)`), sorted by widget id, in every state.
    ///
    /// Answered from memory once the directory is indexed. Files that fail
    /// verification are left out (each one throws its typed `corrupt` error from
    /// `metadata(_:)` and `readBody`), so one damaged file does not hide every other widget.
    package func listTimelines() throws(StoreError) -> [TimelineMetadata] {
        try timelines.indexAll()
        return timelines.index.summaries.map { TimelineMetadata($0, placeholder: nil) }.sorted { $0.widget < $1.widget }
    }

    /// A page of `listTimelines()`: at most `limit` timelines whose widget id sorts after
    /// `after` (nil: from the first), of `provider` (nil: any), and whether more follow.
    /// Selected from the index in one pass, without building or sorting every stored
    /// timeline's metadata (a million of them are hundreds of megabytes).
    package func listTimelines(after: WidgetID?, provider: String?, limit: Int) throws(StoreError) -> (timelines: [TimelineMetadata], more: Bool) {
        try timelines.indexAll()
        let (summaries, more) = timelines.index.page(after: after, provider: provider, limit: limit)
        return (summaries.map { TimelineMetadata($0, placeholder: nil) }, more)
    }

    /// The stored widgets of `provider` and `kind` (`nil`: any), sorted, in every state;
    /// answered from memory once the directory is indexed, without building every
    /// widget's metadata.
    package func storedWidgets(provider: String?, kind: String?) throws(StoreError) -> [WidgetID] {
        try timelines.indexAll()
        return timelines.index.widgets(provider: provider, kind: kind)
    }

    /// Verifies up to `limit` more stored files into the metadata index and returns the
    /// metadata found among them, or `nil` once every file is indexed.
    ///
    /// Verifying a file costs a read and an X25519 operation, so a large store is
    /// indexed in slices between other work rather than all before the daemon is ready.
    /// Damaged files are recorded and left out, as in `listTimelines()`.
    package func indexNextTimelines(limit: Int) throws(StoreError) -> [TimelineMetadata]? {
        try timelines.indexNext(limit: limit)
    }

    /// Whether a widget's timeline is open: its body cached with the "open" mark, so that
    /// its provider may still read it while its class-B key is purged.
    package func isOpen(_ widget: WidgetID) -> Bool { cache.isOpen(widget) }

    /// Closes a widget's timeline: drops (and zeroes) its cached body and "open" mark.
    package func closeTimeline(_ widget: WidgetID) {
        cache.remove(widget)
    }

    /// Deletes a widget's timeline durably; `widgetNotFound` if there is none. The
    /// deletion is recorded in the catalog: the file restored later is ignored.
    ///
    /// One catalog save, never a fold: the widget's journaled writes stay in the journal
    /// and are refused by the catalog wherever they would replay (a fold, a start after
    /// a crash), since the deletion is recorded above the newest of them. A delete that
    /// throws has changed nothing: the catalog's record is taken back in memory if its
    /// save fails, and the file goes only once the record is durable. On a full file
    /// system the save may take the space reserve (`SpaceReserve`).
    ///
    /// The three steps, `prepareDelete`, `commitDelete` and `finishDelete`, can be taken
    /// apart, so that the save's syncs run off the store's thread.
    package func deleteTimeline(_ widget: WidgetID) throws(StoreError) {
        let prepared = try prepareDelete(widget)
        try finishDelete(prepared, Self.commitDelete(prepared))
    }

    /// A delete checked on the store's thread, ready for `commitDelete` on any thread.
    package struct PreparedDelete: @unchecked Sendable {
        package let widget: WidgetID
        let key: FileDigest
        let path: String
        let timelinesDirectory: String
        /// What the deletion is recorded at: above every generation written or being written.
        let generation: UInt64
        let ledger: GenerationLedger
        let metadataKey: SecureBytes
        let reserve: SpaceReserve
    }

    /// Checks a delete and fixes the generation it is recorded at; `widgetNotFound` if
    /// the widget has no timeline. Changes nothing but the index's knowledge of it.
    ///
    /// Reads no file once the widget is indexed (its verdict, the journal's records):
    /// the file is read by `commitDelete`, off the store's thread, since on a disk whose
    /// syncs stall a read waits behind them too, and the loop must not wait on a disk.
    package func prepareDelete(_ widget: WidgetID) throws(StoreError) -> PreparedDelete {
        // A deletion is recorded in the catalog, which is not rebuilt yet.
        guard !awaitingPasscodeToRebuildLedger else { throw .protectedDataUnavailable }
        reserve.replenish()
        let key = try timelines.indexKey(for: widget)
        let name = key.fileName
        let path = "\(timelinesDirectory)/\(name)"
        let journaled = journal?.pending(key)
        // The file's generation, from the index (verified from disk only if not indexed
        // yet); a damaged file is read as it is, and deleted like any other.
        let filed: UInt64?
        do throws(StoreError) {
            filed = try timelines.indexedMetadata(key: key, widget: widget, includingPlaceholder: false)?.generation
        } catch .corrupt {
            let bytes = try fromFiles { () throws(FileError) in try FileSystem.readFile(path, limit: TimelineFile.maximumFileBytes) }
            filed = bytes.map { TimelineFile.generation(of: $0) ?? 0 }
        }
        guard journaled != nil || filed != nil else {
            timelines.forget(key, widget: widget)
            timelines.recordAbsent(key, widget: widget)
            throw .widgetNotFound
        }
        timelines.touch(key, widget: widget)
        // Above every generation written or being written (a batch still committing is
        // indexed already), so that none of them replays or is served after this.
        let generation = max(
            journaled.flatMap(TimelineFile.generation(of:)) ?? 0, filed ?? 0,
            (try? indexedGeneration(widget)).flatMap { $0 } ?? 0)
        return PreparedDelete(
            widget: widget, key: key, path: path, timelinesDirectory: timelinesDirectory,
            generation: generation, ledger: timelines.ledger, metadataKey: custody.subkeys.timelineMetadata, reserve: reserve)
    }

    /// Records the deletion durably in the catalog, then removes the file (if it still
    /// holds a generation the deletion covers). Touches no store state but the catalog
    /// (which locks its own) and the reserve: may run on any thread. On failure the
    /// catalog is as it was.
    package static func commitDelete(_ prepared: PreparedDelete) -> Result<Void, StoreError> {
        let (key, ledger, metadataKey, generation) = (prepared.key, prepared.ledger, prepared.metadataKey, prepared.generation)
        let expected = Array(prepared.widget.description.utf8)[...]
        return Result { () throws(StoreError) in
            // Recorded durably before the file goes: a crash in between leaves the widget
            // deleted, and its file, put back from a backup, ignored. The catalog's usage
            // table loses the file's share in the same save (a file of a deleted widget
            // counts for nobody, gone or not; a journaled write was never in it).
            try prepared.reserve.retryingOnFullDisk { () throws(StoreError) in
                try fromFiles { () throws(FileError) in
                    let before = ledger.entry(key)
                    // The file as it is now, read here (off the loop), inside the change so
                    // that no fold replaces it meanwhile; only a generation the deletion
                    // covers is its to remove (a write numbered after it stands).
                    var bytes: [UInt8]?
                    try ledger.changeFiles(withholding: false, { () throws(FileError) -> UsageChange in
                        bytes = try FileSystem.readFile(prepared.path, limit: TimelineFile.maximumFileBytes)
                            .flatMap { (TimelineFile.generation(of: $0) ?? 0) <= generation ? $0 : nil }
                        var change = UsageChange()
                        change.removing(bytes, key: key, expected: expected, ledger: ledger, metadataKey: metadataKey)
                        try ledger.recordDeleted(key, generation: generation)
                        return change
                    }, thenSave: { () throws(FileError) in
                        do throws(FileError) { try ledger.save() } catch {
                            // Not durable: not deleted, in memory either (no later save may carry it).
                            ledger.restore(key, before)
                            throw error
                        }
                        // Deleted from here on. Inside the change, so that no fold replaces
                        // the file meanwhile: only a file the deletion covers goes (a
                        // failed removal leaves it, ignored, to the next reading of the directory).
                        guard bytes != nil,
                            let current = try? FileSystem.readFile(prepared.path, limit: TimelineFile.maximumFileBytes),
                            (TimelineFile.generation(of: current) ?? 0) <= generation,
                            (try? FileSystem.remove(prepared.path)) == true
                        else { return }
                        _ = try? FileSystem.syncDirectory(prepared.timelinesDirectory)
                    })
                }
            }
        }
    }

    /// Applies a committed delete on the store's thread (cache, journal, index), or
    /// throws its failure, having changed nothing.
    package func finishDelete(_ prepared: PreparedDelete, _ result: Result<Void, StoreError>) throws(StoreError) {
        if case .failure(let error) = result {
            timelines.forget(prepared.key, widget: prepared.widget)
            throw error
        }
        // A write numbered after the delete was prepared (above it) stands.
        journal?.forget(prepared.key, upTo: prepared.generation)
        if let newer = (try? indexedGeneration(prepared.widget)).flatMap({ $0 }), newer > prepared.generation { return }
        cache.remove(prepared.widget)
        timelines.forget(prepared.key, widget: prepared.widget)
        timelines.recordAbsent(prepared.key, widget: prepared.widget)
    }

    // MARK: Reload schedule

    /// The widgets whose reload is due at `now` and whose current generation's due
    /// reload was not yet announced, sorted. Covers the files indexed so far.
    ///
    /// The announcements live in the index, beside the dues, so that the daemon keeps
    /// no map of its own per stored timeline; they last until restart, like the index.
    package func unannouncedReloads(dueAt now: Date) -> [WidgetID] { timelines.index.unannouncedDue(at: now) }

    /// Records that `widget`'s current generation's due reload was announced; a new
    /// generation is due again.
    package func recordReloadAnnounced(_ widget: WidgetID) throws(StoreError) {
        timelines.markAnnounced(widget)
    }

    /// The earliest unannounced reload due after `now`, for the daemon's wake timer.
    /// Remembers its answer until an indexed timeline changes, so that a reschedule
    /// does not pass over every stored timeline.
    package func nextUnannouncedReload(after now: Date) -> Date? { timelines.nextDue(after: now) }

    /// The generation the index holds for `widget`, without reading the disk; `nil`
    /// when none is indexed (not stored, or not verified yet).
    package func indexedGeneration(_ widget: WidgetID) throws(StoreError) -> UInt64? {
        guard case .present(let summary) = timelines.index.verdict(try timelines.indexKey(for: widget), widget: widget) else { return nil }
        return summary.generation
    }

    /// Whether a widget's plaintext is cached (for tests of the purge rules).
    func isCached(_ widget: WidgetID) -> Bool { cache.contains(widget) }

    /// Forgets the cached placeholders (for tests of reading them back from the files).
    func forgetCachedPlaceholders() { timelines.forgetCachedPlaceholders() }

    /// The held key pair of a class (for tests that check it is zeroed on purge).
    func heldKeyPair(_ c: ProtectionClass) -> KeyPair? { custody.lifecycle.newestKeyPair(c) }

    // MARK: Settings

    /// The saved settings bytes, or `nil` if none were saved. Authenticated, not secret.
    package func loadSettings() throws(StoreError) -> [UInt8]? {
        try fromFiles { () throws(FileError) in try SettingsFile.load(stateDirectory: stateDirectory, macKey: custody.subkeys.settingsMAC) }
    }

    /// Saves the settings bytes atomically and durably.
    package func saveSettings(_ bytes: [UInt8]) throws(StoreError) {
        try settingsWrite(bytes).perform().get()
    }

    /// The settings bytes, to be saved atomically and durably on any thread.
    package func settingsWrite(_ bytes: [UInt8]) -> SettingsWrite {
        SettingsWrite(bytes: bytes, stateDirectory: stateDirectory, macKey: custody.subkeys.settingsMAC)
    }
}

/// What rebuilding a lost catalog found (`TimelineStore.rebuildLedger`): how many
/// timeline files opened and were recorded, and the names of those left out (file
/// names are keyed hashes: they reveal no widget).
package struct LedgerRebuild: Equatable, Sendable {
    package let restored: Int
    package let excluded: [String]

    package init(restored: Int, excluded: [String]) {
        self.restored = restored
        self.excluded = excluded
    }
}
