import FoundationEssentials
import Glibc
import StoreAnchor
import StoreFiles
import StoreKeys
import StoreLedger
import WidgetCrypto
import WidgetModel
import WidgetdPOSIX

// Opening the store, beside the designated initializer (which stays in the class
// body with the stored properties it sets): the recovery of an interrupted wipe, the
// checks before anything is created, the catalog made beside a new keybag or rebuilt
// from the files, the journal opened (and folded), and the `OpenReport`.
extension TimelineStore {
    /// Makes the state and timelines directories (checked), finishes a wipe cut short,
    /// and refuses a missing keybag beside what it made readable (`keybagMissing`),
    /// unless `startOver` erases that; then removes the temporary files a crash left.
    /// Runs before the keys are opened. Returns whether a wipe was finished
    /// and what was erased.
    static func prepareStateDirectory(
        _ stateDirectory: String, timelines timelinesPath: String, deviceKeySource: any DeviceKeySource,
        anchor: RollbackAnchor, startOver: Bool
    ) throws(StoreError) -> (finishedWipe: Bool, erased: String?) {
        try fromFiles { () throws(FileError) in try FileSystem.makeDirectory(stateDirectory) }
        var finishedWipe = false
        if FileSystem.exists(Self.wipedTimelinesDirectory(stateDirectory)) {
            // A wipe was asked for and cut short: it is finished, as it would have been.
            try Self.finishWipe(
                stateDirectory: stateDirectory, deviceKeySource: deviceKeySource, anchor: anchor, removingJournal: true)
            finishedWipe = true
        }
        try fromFiles { () throws(FileError) in try FileSystem.makeDirectory(timelinesPath) }
        // Before anything is removed or created (a device key, a keybag): a refusal leaves the evidence as it is.
        var erased: String?
        if !FileSystem.exists("\(stateDirectory)/\(Keybag.fileName)"),
            let remaining = try fromFiles({ () throws(FileError) in
                try Self.unreadableWithoutKeybag(stateDirectory: stateDirectory, timelines: timelinesPath)
            })
        {
            guard startOver else { throw .keybagMissing(path: "\(stateDirectory)/\(Keybag.fileName)", remaining: remaining) }
            try fromFiles { () throws(FileError) in
                try Self.eraseUnreadable(stateDirectory: stateDirectory, timelines: timelinesPath)
            }
            erased = remaining
        }
        try fromFiles { () throws(FileError) in try Self.removeTemporaryFiles(in: stateDirectory) }
        return (finishedWipe, erased)
    }

    /// Takes `event` in the open state (`StoreOpenState`): does what it says, then moves
    /// the state on, only if that succeeded.
    func take(_ event: StoreOpenState.Event) throws(StoreError) {
        let (next, action) = StoreOpenState.transition(from: openState.state, on: event)
        switch action {
        case .none:
            break
        case .trust:
            anchor.proven()
        case .anchorTogether:
            // The files opened unanchored on --start-over are anchored together now.
            anchor.proven()
            try fromFiles { () throws(FileError) in
                try timelines.ledger.saveAnchored { (values) throws(FileError) in try custody.writeKeybag(carrying: values) }
            }
        case .rebuildLedger:
            try rebuildLedger()
        }
        openState.state = next
    }

    /// Completes `openReport` with what the open rebuilt and what it left waiting.
    func reportOpened() {
        openReport.rebuiltLedger = rebuiltLedger
        openReport.awaitingPasscodeToRebuildLedger = awaitingPasscodeToRebuildLedger
        openReport.awaitingPasscodeToAnchor = anchor.isAwaitingProof
    }

    /// The catalog a new keybag is saved beside: empty, or for a keybag of the previous
    /// version (which had none) the generations its timeline files hold now (from their
    /// headers: the trust a first open of this version has to give them). An empty one
    /// knows the usage (no file: a new keybag has none beside it, `prepareStateDirectory`);
    /// one made from files does not.
    static func makeLedger(
        stateDirectory: String, timelines: String, subkeys: DeviceSubkeys, anchor: RollbackAnchor, fromFiles: Bool,
        carrying anchors: AnchorValues
    ) throws(FileError) {
        let made = GenerationLedger.empty(
            stateDirectory: stateDirectory, macKey: subkeys.ledgerMAC, anchor: anchor, usage: fromFiles ? nil : UsageTable())
        if fromFiles {
            for name in try FileSystem.list(timelines) {
                guard let key = FileDigest(fileName: name),
                    let bytes = try? FileSystem.readFile("\(timelines)/\(name)", limit: TimelineFile.maximumFileBytes),
                    let generation = TimelineFile.generation(of: bytes)
                else { continue }
                made.record(key, generation: generation)
            }
        }
        try made.save(carrying: anchors)
    }

    /// Rebuilds a lost catalog from the timeline files, the keybag proven (by the
    /// passcode, or none is set): each file's generation as its header states, once the
    /// whole file opened under the keybag's keys. A file that does not open (damaged,
    /// another widget's name, a key generation the keybag lacks) is left out, recorded
    /// as deleted at its stated generation so that it is never served, and reported.
    /// Then the catalog is saved with the keybag, anchored in tpm2 mode, and the journal
    /// opened (and folded).
    ///
    /// What it cannot see: a file rolled back before the catalog was lost opens, and its
    /// generation is taken as the newest (SECURITY.md).
    func rebuildLedger() throws(StoreError) {
        let rebuilt = GenerationLedger.empty(stateDirectory: stateDirectory, macKey: custody.subkeys.ledgerMAC, anchor: anchor)
        timelines.ledger = rebuilt
        var restored = 0
        var excluded: [String] = []
        let timelinesDirectory = timelinesDirectory
        for name in try fromFiles({ () throws(FileError) in try FileSystem.list(timelinesDirectory) }) {
            guard let key = FileDigest(fileName: name) else { continue }
            do throws(StoreError) {
                rebuilt.record(key, generation: try generationOpening(name: name))
                restored += 1
            } catch {
                switch error {
                case .corrupt, .unsafeEntry: break
                default: throw error
                }
                excluded.append(name)
                if let bytes = try? FileSystem.readFile("\(timelinesDirectory)/\(name)", limit: TimelineFile.maximumFileBytes),
                    let generation = TimelineFile.generation(of: bytes)
                {
                    try fromFiles { () throws(FileError) in try rebuilt.recordDeleted(key, generation: generation) }
                }
            }
        }
        // What was verified against no catalog is verified again against this one.
        timelines.removeAll(empty: false)
        // A log or base the lost head named is no part of the new catalog.
        try fromFiles { () throws(FileError) in try GenerationLedger.removeFiles(stateDirectory: stateDirectory) }
        anchor.proven()
        try fromFiles { () throws(FileError) in
            try rebuilt.saveAnchored { (values) throws(FileError) in try custody.writeKeybag(carrying: values) }
        }
        journal = try openJournal()
        timelines.journal = journal
        let found = LedgerRebuild(restored: restored, excluded: excluded.sorted())
        rebuiltLedger = found
        timelines.reporter?.ledgerRebuilt(found)
    }

    /// The generation of the timeline file `name` once the whole file opened under the
    /// keybag's keys (header, metadata and body); throws `corrupt` if it does not.
    private func generationOpening(name: String) throws(StoreError) -> UInt64 {
        let path = "\(timelinesDirectory)/\(name)"
        guard let (sealed, metadata, _) = try timelines.readSealed(name: name, expected: nil) else {
            throw .corrupt(file: path, reason: .truncated)
        }
        guard let pair = custody.keyPair(metadata.protectionClass, generation: metadata.keyGeneration) else {
            throw .corrupt(file: path, reason: .unknownKeyGeneration)
        }
        _ = try fromFiles { () throws(FileError) in try TimelineFile.openBody(sealed, classKey: pair, file: path) }
        return metadata.generation
    }

    /// The catalog beside the keybag; `ledgerMissing` if it is not there.
    static func loadLedger(
        stateDirectory: String, subkeys: DeviceSubkeys, anchor: RollbackAnchor
    ) throws(StoreError) -> GenerationLedger {
        guard let loaded = try fromFiles({ () throws(FileError) in try GenerationLedger.load(stateDirectory: stateDirectory, macKey: subkeys.ledgerMAC, anchor: anchor) }) else {
            throw .ledgerMissing(path: "\(stateDirectory)/\(GenerationLedger.fileName)")
        }
        return loaded
    }

    /// The rest of a wipe once the timelines are set aside: the keybag (the only copy of
    /// the wrapped class secrets), the device key its source keeps, the settings, then
    /// the set-aside timelines. At an open after a crash the journal goes too: with a
    /// device key from a credential, which survives, its records would still verify.
    /// Each removal tolerates what an earlier, interrupted run already removed.
    ///
    /// Once the keybag and the catalog are gone the rollback counter goes up, so that no
    /// copy of them from a backup passes again.
    static func finishWipe(
        stateDirectory: String, deviceKeySource: any DeviceKeySource, anchor: RollbackAnchor, removingJournal: Bool
    ) throws(StoreError) {
        try fromFiles { () throws(FileError) in
            try FileSystem.remove("\(stateDirectory)/\(Keybag.fileName)")
            // After the keybag: a keybag without its catalog would be a start error.
            try GenerationLedger.removeFiles(stateDirectory: stateDirectory)
            try FileSystem.syncDirectory(stateDirectory)
        }
        try fromAnchor { () throws(AnchorError) in try anchor.advance() }
        try fromKeys { () throws(KeyError) in try deviceKeySource.destroyDeviceKey() }
        try fromFiles { () throws(FileError) in try removeWipedFiles(stateDirectory: stateDirectory, removingJournal: removingJournal) }
    }

    /// The rest of `finishWipe` once the keys are gone: the settings, the journal if
    /// asked, then the set-aside timelines and their directory.
    private static func removeWipedFiles(stateDirectory: String, removingJournal: Bool) throws(FileError) {
        try FileSystem.remove("\(stateDirectory)/\(SettingsFile.fileName)")
        if removingJournal { try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)") }
        try FileSystem.syncDirectory(stateDirectory)
        let aside = wipedTimelinesDirectory(stateDirectory)
        // Never a link: its targets are not ours to remove.
        Syscall.close(try FileSystem.openDirectory(aside))
        for name in try FileSystem.list(aside) { try FileSystem.remove("\(aside)/\(name)") }
        // The removals inside it durable before the directory itself goes: otherwise a
        // power cut can bring `timelines.wiped/` back after a later start, and that
        // start would take it for a wipe still to finish and erase a newer keybag.
        try FileSystem.syncDirectory(aside)
        guard rmdir(aside) == 0 else { throw .io(operation: "rmdir", path: aside, errno: .current) }
        try FileSystem.syncDirectory(stateDirectory)
    }

    /// What a missing keybag leaves unreadable: the timeline files and the journal's
    /// writes, described for the start error; `nil` if there is nothing (a fresh directory).
    static func unreadableWithoutKeybag(stateDirectory: String, timelines: String) throws(FileError) -> String? {
        let files = try FileSystem.list(timelines).filter { $0.hasSuffix(TimelineFile.fileExtension) }.count
        var remaining: [String] = []
        if files > 0 { remaining.append("\(files) timeline file\(files == 1 ? "" : "s")") }
        if try Journal.holdsRecords(stateDirectory: stateDirectory) { remaining.append("the journal's writes") }
        return remaining.isEmpty ? nil : remaining.joined(separator: " and ")
    }

    /// Starting over: removes every timeline file and the journal, which no key can
    /// open any more. The device key and the settings stay (the settings are the
    /// user's, authenticated by the device key, and closing them is never reset here).
    static func eraseUnreadable(stateDirectory: String, timelines: String) throws(FileError) {
        try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)")
        try FileSystem.syncDirectory(stateDirectory)
        for name in try FileSystem.list(timelines) { try FileSystem.remove("\(timelines)/\(name)") }
        try FileSystem.syncDirectory(timelines)
    }

    func openJournal() throws(StoreError) -> Journal? {
        guard journalCapacity > 0 else {
            // A journal left by a run that had one still holds acknowledged writes.
            guard FileSystem.exists("\(stateDirectory)/\(Journal.fileName)") else { return nil }
            let leftover = try fromFiles { () throws(FileError) in try Journal(
                stateDirectory: stateDirectory, timelinesDirectory: timelinesDirectory, macKey: custody.subkeys.journalMAC,
                metadataKey: custody.subkeys.timelineMetadata, ledger: timelines.ledger
            ) }
            try fromFiles { () throws(FileError) in try leftover.fold() }
            try fromFiles { () throws(FileError) in try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)") }
            try fromFiles { () throws(FileError) in try FileSystem.syncDirectory(stateDirectory) }
            return nil
        }
        do throws(StoreError) {
            let opened = try fromFiles { () throws(FileError) in try Journal(
                stateDirectory: stateDirectory, timelinesDirectory: timelinesDirectory, capacity: journalCapacity,
                macKey: custody.subkeys.journalMAC, metadataKey: custody.subkeys.timelineMetadata, ledger: timelines.ledger,
                folding: journalFolding) }
            return opened
        } catch .io(let operation, let path, Errno(rawValue: ENOSPC)) {
            // A full disk. Removed only if it holds no record: every acknowledged write it
            // held is then durably in its file (the open folded them and emptied it, or
            // there were none), and writes go straight to their files, as without a
            // journal, until the next open tries again. One whose records are still in
            // it is never removed: the open keeps it and serves from it when it can
            // (`Journal.unfoldedAtOpen`), and otherwise this start fails, the journal
            // as it was, with the reason.
            guard !(try fromFiles({ () throws(FileError) in try Journal.holdsRecords(stateDirectory: stateDirectory) })) else {
                throw .io(operation: operation, path: path, errno: Errno(rawValue: ENOSPC))
            }
            try fromFiles { () throws(FileError) in try FileSystem.remove("\(stateDirectory)/\(Journal.fileName)") }
            try fromFiles { () throws(FileError) in try FileSystem.syncDirectory(stateDirectory) }
            journalUnavailable = .io(operation: "preallocate", path: "\(stateDirectory)/\(Journal.fileName)", errno: Errno(rawValue: ENOSPC))
            return nil
        }
    }

    static func removeTemporaryFiles(in directory: String) throws(FileError) {
        for name in try FileSystem.list(directory) where name.hasPrefix(".tmp-") {
            try FileSystem.remove("\(directory)/\(name)")
        }
    }
}
