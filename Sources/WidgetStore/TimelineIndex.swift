import FoundationEssentials
import StoreFiles
import StoreLedger
import WidgetModel

/// The store's memory of its timeline files, kept compact so that the daemon's memory
/// grows with what it caches rather than with what it stores.
///
/// Per present file it holds only what calls need often — generation, class, reload
/// due, whether a placeholder exists, the reload announcement, the file's size, the
/// key generation, the family — in a `WidgetTable`: sorted by widget id and front-coded
/// in small blocks, which is the table, the id order and the id store at once (about
/// 10–20 bytes per file for ids that share a provider and kind; see
/// docs/ARCHITECTURE.md). Families are interned in a small table. Placeholders are not
/// kept here: the store reads them back from the verified file.
///
/// Nearly every question comes with the widget id (the file-name digest is derived
/// from it) and is answered from the table. The verdicts known only by digest live in
/// a small `DigestTable` of markers: files that failed verification, files found
/// absent while the index is partial, and, while it is partial, the files recorded
/// outside the directory scan, so that the scan does not read them again. Absent and
/// present markers go when the index is complete (`removeAbsent`).
///
/// Views kept in step with the table through every change, each its own type: each
/// provider's usage for the quotas (`ProviderUsageTally`, and while the index is
/// partial, by the catalog's table at open, `UsageSinceOpen`); the files per key
/// generation (`KeyGenerationTally`); and the earliest reload still to announce
/// (`NextReloadDue`). With the announced bit of each entry it answers the reload
/// schedule (DESIGN §2), so the daemon keeps no map per timeline.
///
/// Only metadata whose file verified (or that the store just wrote) is recorded here;
/// the index itself proves nothing and does no I/O.
struct TimelineIndex {
    /// What the index knows of one file.
    enum Verdict: Equatable {
        /// No such file.
        case absent
        /// The file failed verification for this reason.
        case corrupt(CorruptionReason)
        /// The file verified (or was just written) with this metadata.
        case present(Summary)
    }

    /// A verified file's metadata without its placeholder.
    struct Summary: Equatable {
        var widget: WidgetID
        var protectionClass: ProtectionClass
        var family: String?
        var generation: UInt64
        var reloadDue: Date?
        /// Whether the file holds a placeholder (read it from the file).
        var hasPlaceholder: Bool
        /// The keybag generation its body is sealed to.
        var keyGeneration: UInt32 = 0
    }

    /// A marker's state bits (0–1; bits 2–4 hold a corruption reason).
    private static let presentMarker: UInt8 = 0
    private static let absentMarker: UInt8 = 1
    private static let corruptMarker: UInt8 = 2

    /// A class as a present entry's detail bits: its header code (`ProtectionClass.code`),
    /// which the file format fixes for good, never its place in `allCases`, which moves
    /// when a case is added or reordered. The index lives in memory only; the table is
    /// written out so that the three bits and the decoder below cannot drift apart.
    ///
    /// | class                                  | detail |
    /// |----------------------------------------|--------|
    /// | `complete`                             | 1      |
    /// | `completeUnlessOpen`                   | 2      |
    /// | `completeUntilFirstUserAuthentication` | 3      |
    /// | `none`                                 | 4      |
    static func classDetail(_ protectionClass: ProtectionClass) -> UInt8 {
        switch protectionClass {
        case .complete: 1
        case .completeUnlessOpen: 2
        case .completeUntilFirstUserAuthentication: 3
        case .none: 4
        }
    }

    /// The class whose detail bits are `detail` (see `classDetail`): a switch, not
    /// `ProtectionClass(code:)`'s search, since every summary read decodes one.
    static func protectionClass(detail: Int) -> ProtectionClass {
        switch detail {
        case 1: .complete
        case 2: .completeUnlessOpen
        case 3: .completeUntilFirstUserAuthentication
        case 4: .none
        default: preconditionFailure("a present entry's detail bits hold a class code")
        }
    }

    /// The detail bits packed for the present widget `widget`, for the tests that pin
    /// the class table; `nil` unless it is present.
    func packedClassDetail(_ widget: WidgetID) -> UInt8? { table.entry(for: Self.idBytes(widget))?.detail }

    private static let corruptionReasons: [CorruptionReason] = [
        .authenticationFailure, .truncated, .badMagic, .unsupportedVersion, .wrongWidget, .wrongClass, .malformed,
    ]

    /// The present files, by widget id.
    private var table = WidgetTable()
    /// The verdicts kept by file-name digest: corrupt and absent files, and while the
    /// index is partial, the present files recorded outside the scan.
    private var markers = DigestTable<UInt8>()
    /// Interned families: providers use a handful of names for thousands of widgets.
    private var families: [String] = []
    private var familyCodes: [String: UInt32] = [:]
    /// The most families interned; any more are kept in their entries.
    private static let internLimit = 65_534
    /// The next reload due, kept in step with the entries (`added`, `dropped`).
    private var nextReloadDue = NextReloadDue()
    /// Each provider's present widgets and their files' bytes, kept in step (`account`).
    private var usages = ProviderUsageTally()
    /// Each provider's usage by the catalog's table at open and the files touched since
    /// (`nil`: not known); kept in step (`account`) until the index is complete.
    private var usageSinceOpen: UsageSinceOpen?
    /// The present files of classes A, B and C per key generation, kept in step (`account`).
    private var keyGenerations = KeyGenerationTally()

    /// The key generations some present file of class A, B or C is sealed to (every
    /// one in the directory once the index is complete, and the writes still pending).
    var keyGenerationsInUse: Set<UInt32> { keyGenerations.inUse }

    /// How many files the index has a verdict for.
    var count: Int { table.count + markers.values.count { $0 & 0b11 != Self.presentMarker } }

    /// What is known of the file `key` of `widget` (`nil`: not known, which only knows
    /// the verdicts kept by digest), or `nil` if it was never looked at.
    func verdict(_ key: FileDigest, widget: WidgetID?) -> Verdict? {
        if let marker = markers[key], let verdict = Self.verdict(marker: marker) { return verdict }
        guard let widget, let entry = table.entry(for: Self.idBytes(widget)) else { return nil }
        return .present(summary(widget, entry))
    }

    /// Whether the file `key` has a verdict the scan must not read again: one kept by
    /// digest (see `record`'s `marked`).
    func isMarked(_ key: FileDigest) -> Bool { markers[key] != nil }

    /// The file size recorded for `widget`'s file `key` if it is present.
    func fileBytes(_ key: FileDigest, widget: WidgetID) -> Int? {
        guard !isMarkedGone(key) else { return nil }
        return table.entry(for: Self.idBytes(widget)).map { Int($0.fileBytes) }
    }

    /// What `provider`'s present files take, of the files indexed so far.
    func usage(of provider: String) -> ProviderUsage { usages.usage(of: provider) }

    /// Every provider's usage by the present files (exact once the index is complete).
    var usageTable: UsageTable { usages.table }

    /// What `provider`'s files take by the usage the catalog gave at open and the files
    /// touched since, or `nil` if that is not known.
    func usageSinceOpen(of provider: String) -> ProviderUsage? { usageSinceOpen?.usage(of: provider) }

    /// Every provider's usage by the usage the catalog gave at open and the files touched
    /// since, or `nil` if that is not known.
    var usageTableSinceOpen: UsageTable? { usageSinceOpen?.all }

    /// Whether the usage the catalog gave at open is in use (see `usageSinceOpen(of:)`).
    var hasUsageSinceOpen: Bool { usageSinceOpen != nil }

    /// Starts from the usage table the catalog gave at open (the files as folded now).
    mutating func startUsage(from table: UsageTable) { usageSinceOpen = UsageSinceOpen(table) }

    /// Stops answering by the open's table: the index is complete and its own tally is
    /// exact, or a touched file's share is no longer known.
    mutating func forgetUsageSinceOpen() { usageSinceOpen = nil }

    /// Notes that a write or a delete is about to change `widget`'s file `key`: from the
    /// first time, its share as the index holds it now (verified from the disk, or none)
    /// is taken as its share in the open's table, and its changes count from then on.
    mutating func touch(_ key: FileDigest, widget: WidgetID) {
        guard usageSinceOpen != nil, !usageSinceOpen!.isTouched(key) else { return }
        let id = Self.idBytes(widget)
        var share: (widget: ArraySlice<UInt8>, fileBytes: Int)?
        if !isMarkedGone(key), let entry = table.entry(for: id) {
            share = (id[...], Int(entry.fileBytes))
        }
        usageSinceOpen!.touch(key, share: share)
    }

    /// Records a verified or just-written file's metadata and size; its reload is not
    /// announced. `marked`: kept by digest too, so that the scan does not read it again
    /// (a record outside the scan while the index is partial).
    mutating func record(_ key: FileDigest, _ metadata: TimelineMetadata, fileBytes: Int, marked: Bool = false) {
        let id = Self.idBytes(metadata.widget)
        var family: UInt32 = 0
        var inline: [UInt8]?
        if let name = metadata.family {
            if let code = intern(name) { family = code } else { inline = Array(name.utf8) }
        }
        let entry = WidgetTable.Entry(
            generation: metadata.generation, due: metadata.reloadDue?.timeIntervalSinceReferenceDate ?? .nan,
            fileBytes: UInt32(clamping: fileBytes), keyGeneration: metadata.keyGeneration, family: family,
            inlineFamily: inline, detail: Self.classDetail(metadata.protectionClass), announced: false,
            hasPlaceholder: metadata.placeholder != nil)
        if let old = table.set(id, entry) {
            account(old, id, key, -1)
            dropped(old)
        }
        if marked {
            markers[key] = Self.presentMarker
        } else if markers[key] != nil {
            markers[key] = nil
        }
        account(entry, id, key, 1)
        added(entry)
    }

    /// Records that no file `key` (of `widget`, if known) exists.
    mutating func recordAbsent(_ key: FileDigest, widget: WidgetID?) {
        replace(key, widget: widget, with: Self.absentMarker)
    }

    /// Records that the file `key` (of `widget`, if known) failed verification.
    mutating func recordCorrupt(_ key: FileDigest, widget: WidgetID?, _ reason: CorruptionReason) {
        replace(key, widget: widget, with: Self.corruptMarker | UInt8(Self.corruptionReasons.firstIndex(of: reason)!) << 2)
    }

    /// Forgets the file `key` of `widget`: the next question about it goes to the disk.
    mutating func forget(_ key: FileDigest, widget: WidgetID?) { replace(key, widget: widget, with: nil) }

    /// Forgets every verdict kept by digest but corruption: once every file is indexed,
    /// absence is implied, lookups of widgets never stored must not fill the markers,
    /// and the scan that the present markers spared is over.
    mutating func removeAbsent() {
        var kept = DigestTable<UInt8>()
        for (key, marker) in zip(markers.keys, markers.values) where marker & 0b11 == Self.corruptMarker {
            kept[key] = marker
        }
        markers = kept
    }

    /// Forgets every file.
    mutating func removeAll() {
        self = TimelineIndex()
    }

    /// Every present file's summary, sorted by widget id.
    var summaries: [Summary] {
        var found: [Summary] = []
        table.walk(from: nil) { id, entry in
            found.append(summary(Self.widget(id), entry))
            return true
        }
        return found
    }

    /// The present widgets of `provider` and `kind` (`nil`: any), sorted. With a
    /// provider, only its range of the id order is walked; the kind is matched on the
    /// ids' bytes in place, so a walk allocates only for matches.
    func widgets(provider: String?, kind: String?) -> [WidgetID] {
        let prefix = provider.map { Array($0.utf8) + [UInt8(ascii: "/")] }
        let kind = kind.map { Array($0.utf8) }
        var found: [WidgetID] = []
        let start = prefix.map { prefix in { (id: UnsafeBufferPointer<UInt8>) in id.lexicographicallyPrecedes(prefix) } }
        table.walk(from: start) { candidate, _ in
            if let prefix, !candidate.starts(with: prefix) { return false }
            if let kind {
                // Recorded ids are valid: PROVIDER/KIND[#INSTANCE].
                let slash = candidate.firstIndex(of: UInt8(ascii: "/"))!
                let end = candidate[(slash + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? candidate.endIndex
                guard candidate[(slash + 1)..<end].elementsEqual(kind) else { return true }
            }
            found.append(Self.widget(candidate))
            return true
        }
        return found
    }

    /// A page of the present files in widget id order: at most `limit` whose id sorts
    /// after `after` (nil: from the first) and whose provider is `provider` (nil: any),
    /// and whether more follow. A binary search of the blocks finds the page's first
    /// id (a provider's ids are one range of the order, from "PROVIDER/" on) and a walk
    /// reads the page: the cost is the page's (and a block's), not the store's.
    func page(after: WidgetID?, provider: String?, limit: Int) -> (summaries: [Summary], more: Bool) {
        precondition(limit > 0, "a page holds at least one widget")
        let after = after.map { Array($0.description.utf8) }
        let prefix = provider.map { Array($0.utf8) + [UInt8(ascii: "/")] }
        var page: [Summary] = []
        // A client names the limit: room for a large page is made as it fills.
        page.reserveCapacity(min(limit, Self.insertedPageLimit))
        var more = false
        // Both bounds hold for a prefix of the order, and so does either of them.
        table.walk(from: { candidate in
            if let prefix, candidate.lexicographicallyPrecedes(prefix) { return true }
            if let after, !after.lexicographicallyPrecedes(candidate) { return true }
            return false
        }) { candidate, entry in
            if let prefix, !candidate.starts(with: prefix) { return false }
            guard page.count < limit else {
                more = true
                return false
            }
            page.append(summary(Self.widget(candidate), entry))
            return true
        }
        return (page, more)
    }

    /// Pages up to this size have their room made at once; larger ones grow as they fill.
    static let insertedPageLimit = 1024

    // MARK: Reload schedule

    /// Records that the due reload of the current generation of `widget` was announced.
    mutating func markAnnounced(_ widget: WidgetID) {
        let id = Self.idBytes(widget)
        guard var entry = table.entry(for: id), !entry.announced else { return }
        dropped(entry)
        entry.announced = true
        table.set(id, entry)
    }

    /// The widgets whose reload is due at `now` and not yet announced, sorted.
    func unannouncedDue(at now: Date) -> [WidgetID] {
        let limit = now.timeIntervalSinceReferenceDate
        var found: [WidgetID] = []
        table.forEachPendingDue(spellingIDs: true, readingBlocksWithEarliest: { $0 <= limit }) { id, due in
            if due <= limit { found.append(Self.widget(id)) }
        }
        return found.sorted()
    }

    /// The earliest unannounced reload due after `now`, for the wake timer.
    mutating func nextDue(after now: Date) -> Date? {
        let now = now.timeIntervalSinceReferenceDate
        if let known = nextReloadDue.answer(after: now) {
            return known.map(Date.init(timeIntervalSinceReferenceDate:))
        }
        var answer: Double?
        // A block can hold a better answer only if its earliest pending due is before the best so far.
        table.forEachPendingDue(spellingIDs: false, readingBlocksWithEarliest: { $0 < (answer ?? .infinity) }) { _, due in
            if due > now, answer.map({ due < $0 }) ?? true { answer = due }
        }
        nextReloadDue.remember(answer, after: now)
        return answer.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// An entry joined the unannounced ones: it may be the new earliest.
    private mutating func added(_ entry: WidgetTable.Entry) {
        guard let due = entry.pendingDue else { return }
        nextReloadDue.added(due)
    }

    /// An entry left the unannounced ones: if it was the earliest, ask again.
    private mutating func dropped(_ entry: WidgetTable.Entry?) {
        guard let due = entry?.pendingDue else { return }
        nextReloadDue.dropped(due)
    }

    // MARK: Storage

    /// Removes `widget`'s present entry (if known) and keeps `marker` (nil: none) for `key`.
    private mutating func replace(_ key: FileDigest, widget: WidgetID?, with marker: UInt8?) {
        if let widget {
            let id = Self.idBytes(widget)
            if let old = table.remove(id) {
                account(old, id, key, -1)
                dropped(old)
            }
        }
        markers[key] = marker
    }

    /// Adds (`sign` 1) or removes (-1) a present entry's share of its provider's usage
    /// and of its key generation's files (and of the usage since the open, for a
    /// touched file `key`).
    private mutating func account(_ entry: WidgetTable.Entry, _ id: [UInt8], _ key: FileDigest, _ sign: Int) {
        usages.count(widget: id[...], fileBytes: Int(entry.fileBytes), sign)
        if usageSinceOpen?.isTouched(key) == true {
            usageSinceOpen!.count(widget: id[...], fileBytes: Int(entry.fileBytes), sign)
        }
        if Self.protectionClass(detail: Int(entry.detail)) != .none { keyGenerations.count(entry.keyGeneration, sign) }
    }

    /// The verdict a marker kept by digest gives, `nil` for a present one (the table has it).
    private static func verdict(marker: UInt8) -> Verdict? {
        switch marker & 0b11 {
        case absentMarker: .absent
        case corruptMarker: .corrupt(corruptionReasons[Int(marker >> 2 & 0b111)])
        default: nil
        }
    }

    /// Whether a marker kept for `key` says its file is absent or corrupt.
    private func isMarkedGone(_ key: FileDigest) -> Bool { markers[key].map { Self.verdict(marker: $0) != nil } ?? false }

    private static func idBytes(_ widget: WidgetID) -> [UInt8] { Array(widget.description.utf8) }

    /// The code of an interned family, or `nil` once the table is full.
    private mutating func intern(_ family: String) -> UInt32? {
        if let code = familyCodes[family] { return code }
        guard families.count < Self.internLimit else { return nil }
        families.append(family)
        let code = UInt32(families.count)
        familyCodes[family] = code
        return code
    }

    private static func widget(_ id: UnsafeBufferPointer<UInt8>) -> WidgetID {
        // Only ids that parsed before are recorded.
        try! WidgetID(String(decoding: id, as: UTF8.self))
    }

    private func summary(_ widget: WidgetID, _ entry: WidgetTable.Entry) -> Summary {
        let family: String?
        if let inline = entry.inlineFamily {
            family = String(decoding: inline, as: UTF8.self)
        } else {
            family = entry.family == 0 ? nil : families[Int(entry.family) - 1]
        }
        return Summary(
            widget: widget, protectionClass: Self.protectionClass(detail: Int(entry.detail)), family: family,
            generation: entry.generation,
            reloadDue: entry.due.isNaN ? nil : Date(timeIntervalSinceReferenceDate: entry.due),
            hasPlaceholder: entry.hasPlaceholder, keyGeneration: entry.keyGeneration)
    }
}

extension TimelineMetadata {
    /// The metadata an index summary stands for, with the placeholder read beside it.
    init(_ summary: TimelineIndex.Summary, placeholder: [UInt8]?) {
        self.init(
            widget: summary.widget, protectionClass: summary.protectionClass, family: summary.family,
            generation: summary.generation, reloadDue: summary.reloadDue, placeholder: placeholder)
        keyGeneration = summary.keyGeneration
    }
}
