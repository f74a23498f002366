import WidgetdPOSIX

/// The rollback counter's values a keybag or a catalog carries (DESIGN §9): for each of
/// the two files, the counter's value at its last anchored save. Both files carry both
/// values, as known when each was written, so that the newer one says what the other
/// must carry. All zero in software mode (not anchored).
package struct AnchorValues: Sendable, Equatable {
    /// The counter's value at the keybag's last anchored save.
    package var keybag: UInt64
    /// The counter's value at the catalog's last anchored save.
    package var catalog: UInt64

    package init(keybag: UInt64, catalog: UInt64) {
        self.keybag = keybag
        self.catalog = catalog
    }

    /// Not anchored: software mode, or a file of a format before anchors.
    package static let none = AnchorValues(keybag: 0, catalog: 0)
}

/// How the keybag and the catalog are anchored to the `RollbackCounter` (DESIGN §9),
/// and the check at open that refuses either file restored from before its last anchor.
///
/// **An anchored save** writes the file durably carrying the counter's value plus one
/// first, then increments the counter. A crash between the two leaves the file one
/// ahead of the counter: the next open accepts it and increments once to catch up. So
/// the only older copy ever accepted is the predecessor of one interrupted write, and
/// only until that catch-up.
///
/// **At open** the file whose own value is the larger was anchored last. Its value must
/// equal the counter (or be one ahead, after a crash), and the value it records for the
/// other file must be the one that file carries. Anything lower is `rolledBack`; files
/// more than one ahead of the counter mean a counter reset, undefined or of another
/// TPM, and are a `rollbackCounter` error: both fail closed, nothing is served.
///
/// Every keybag save is anchored (they are rare: a failed attempt, a passcode set,
/// change or removal, a dropped key generation, the reset after a right passcode). The
/// catalog is anchored at each journal fold and orderly stop; its saves in between (a
/// delete, a batch written straight into its files) carry the last anchor unchanged,
/// which is the window of rollback that remains (SECURITY.md). A wipe increments the
/// counter once its files are gone.
///
/// Threading: any thread (a fold anchors on a commit thread); one lock serialises the
/// anchors and the counter's calls, so two saves never claim the same value.
package final class RollbackAnchor: @unchecked Sendable {
    /// Which file an anchored save writes.
    package enum File {
        case keybag
        case catalog
    }

    /// The counter; `nil` in software mode, where nothing is anchored.
    package let counter: (any RollbackCounter)?
    private let lock = ThreadLock()
    /// What the keybag and the catalog on disk carry now.
    private var values = AnchorValues.none
    /// The counter's value as last read or reached; `nil` when unknown (before the
    /// first read, after an increment that failed and may or may not have happened).
    private var known: UInt64?
    /// Files that carry no anchor on a counter that moved, opened on an administrator's
    /// `--start-over` (see `check`): nothing is anchored until the passcode proves the
    /// keybag (`proven()`), and saves until then carry no anchor.
    private var awaitingProof = false

    package init(counter: (any RollbackCounter)?) {
        self.counter = counter
    }

    /// Whether the counter anchors the files (`GetStatus.protection.rollback` `tpm2`).
    package var isAnchoring: Bool { counter != nil }

    /// Whether unanchored files were opened on `--start-over` and wait for the passcode.
    package var isAwaitingProof: Bool { lock.withLock { awaitingProof } }

    /// The passcode proved the keybag: the next anchored save anchors again.
    package func proven() { lock.withLock { awaitingProof = false } }

    /// What a save that is not anchored writes: the values the files carry now.
    package var current: AnchorValues { lock.withLock { values } }

    /// An anchored save: `write` makes `files` durable carrying the values it is given,
    /// then the counter is incremented to them. Without a counter, `write` gets `none`.
    ///
    /// A `write` that throws leaves the counter as it was. A counter that fails after
    /// the write throws `rollbackCounter`; the file stands (the next open catches up).
    package func anchor<Failure: Error>(
        _ files: [File], write: (AnchorValues) throws(Failure) -> Void
    ) throws(AnchoredSaveError<Failure>) {
        lock.lock()
        defer { lock.unlock() }
        func written(_ values: AnchorValues) throws(AnchoredSaveError<Failure>) {
            do throws(Failure) { try write(values) } catch { throw .write(error) }
        }
        guard let counter else { return try written(.none) }
        // Not yet proven: saved as it was read, without an anchor and without counting.
        if awaitingProof { return try written(values) }
        var base: UInt64
        do throws(AnchorError) {
            if let known { base = known } else { base = try counter.read() }
            if base == 0 {
                // Never incremented: a TPM counter's first value is not necessarily 1 (it
                // starts from the highest any counter had), so it is set up before use.
                base = try counter.increment()
            }
        } catch {
            throw .anchor(error)
        }
        known = base
        var next = values
        for file in files {
            switch file {
            case .keybag: next.keybag = base + 1
            case .catalog: next.catalog = base + 1
            }
        }
        try written(next)
        values = next
        known = nil
        do throws(AnchorError) { try reach(base + 1, from: base, counter) } catch { throw .anchor(error) }
    }

    /// A wipe: the anchored files are gone, and the counter is incremented so that no
    /// copy of them passes again. Its value is read afresh at the next anchor: the rest
    /// of a wipe may move the same counter (the TPM's own wipe increments it too).
    package func advance() throws(AnchorError) {
        lock.lock()
        defer { lock.unlock() }
        values = .none
        known = nil
        // The files awaiting proof are gone: the new store's are anchored from the start.
        awaitingProof = false
        guard let counter else { return }
        _ = try counter.increment()
    }

    /// The check at open (see the type's summary) of the keybag's and the catalog's
    /// values; returns the counter's value when it had to catch up after a crash, else
    /// `nil`. Without a counter, accepts anything.
    ///
    /// Files that carry no anchor at all while the counter has moved (a tpm2 store
    /// wiped under a version that anchored nothing, and made again) are refused as
    /// rolled back like any other, since a copy restored from before anchors looks the
    /// same; with `adoptUnanchored` (`--start-over`, an administrator's act) they open
    /// awaiting proof, and are anchored once the passcode proves the keybag.
    ///
    /// With `ledgerLost` (the catalog is gone and is to be rebuilt from the timeline
    /// files, `--start-over`) only the keybag is checked, and only that it is not ahead
    /// of the counter: the catalog may have been anchored after it, so a keybag behind
    /// the counter cannot be told from a restored one. It opens awaiting proof like
    /// unanchored files, and the rebuilt catalog and the keybag are anchored together.
    package func check(
        keybag: AnchorValues, catalog: AnchorValues, keybagPath: String, ledgerPath: String, adoptUnanchored: Bool = false,
        ledgerLost: Bool = false
    ) throws(AnchorError) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        guard let counter else { return nil }
        let value = try counter.read()
        if ledgerLost {
            if keybag.keybag > value + 1 {
                throw .rollbackCounter(
                    reason: "the counter is at \(value), behind the keybag's \(keybag.keybag): it was reset or undefined, or this is another TPM")
            }
            awaitingProof = true
            values = keybag
            known = value
            return nil
        }
        if adoptUnanchored, keybag == .none, catalog == .none, value > 0 {
            awaitingProof = true
            values = .none
            known = value
            return nil
        }
        let keybagIsNewer = keybag.keybag >= catalog.catalog
        let (newest, recorded) = keybagIsNewer ? (keybag.keybag, keybag) : (catalog.catalog, catalog)
        if newest < value {
            // The copy that carried the counter's value is gone, and either file may have
            // been it: both are named.
            throw .rolledBack(file: "\(keybagPath) or \(ledgerPath)", found: newest, expected: value)
        }
        if newest > value + 1 {
            throw .rollbackCounter(
                reason: "the counter is at \(value), behind the state directory's \(newest): it was reset or undefined, or this is another TPM")
        }
        if catalog.catalog != recorded.catalog {
            throw .rolledBack(file: ledgerPath, found: catalog.catalog, expected: recorded.catalog)
        }
        if keybag.keybag != recorded.keybag {
            throw .rolledBack(file: keybagPath, found: keybag.keybag, expected: recorded.keybag)
        }
        values = AnchorValues(keybag: keybag.keybag, catalog: catalog.catalog)
        known = value
        guard newest == value + 1 else { return nil }
        // Written, and cut short before the increment: caught up once, so that the
        // file's predecessor is refused from now on.
        known = nil
        try reach(newest, from: value, counter)
        return newest
    }

    /// Increments the counter, which must then be at `target`.
    private func reach(_ target: UInt64, from base: UInt64, _ counter: any RollbackCounter) throws(AnchorError) {
        let reached = try counter.increment()
        known = reached
        guard reached == target else {
            throw .rollbackCounter(
                reason: "an increment took the counter from \(base) to \(reached), not \(target): something else increments it")
        }
    }
}
