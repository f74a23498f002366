import FoundationEssentials
import WidgetModel

/// The store's memory of its timeline files, kept compact so that the daemon's memory
/// grows with what it caches rather than with what it stores.
///
/// Per file it holds only what calls need often — the verdict (present, absent,
/// corrupt), generation, class, reload due, whether a placeholder exists, the reload
/// announcement, the file's size — in a 32-byte entry keyed by the 16-byte file-name
/// digest (in a `DigestTable`, 53–55 bytes per file with the key and slot); the widget
/// id's bytes live in one shared arena and families in a small interned table.
/// Placeholders are not kept here: the store reads them back from the verified file.
///
/// The entry table (the packed entries and the id arena, compacted when mostly
/// garbage) is the one source; views derived from it are kept in step through every
/// change, each its own type: the present files in widget id order (`WidgetOrder`), so
/// that a page of `ListWidgets` and a provider's widgets cost what they return, not the
/// store's size; each provider's usage for the quotas (`ProviderUsageTally`, and while
/// the index is partial, by the catalog's table at open, `UsageSinceOpen`); the files
/// per key generation (`KeyGenerationTally`); and the earliest reload still to announce
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

    /// One file, 32 bytes; with its key, 48 bytes in the table's packed arrays. Not 24:
    /// the generation (UInt64 on the wire), the due date (a `Double`), the id's offset
    /// and the key generation already take 24 bytes, before the size, family and bits.
    private struct Entry {
        var generation: UInt64
        /// `timeIntervalSinceReferenceDate` of the reload due, NaN for none.
        var due: Double
        /// Where the widget id starts in `arena` (present entries only).
        var offset: UInt32
        /// The file's size in bytes (present entries only); files are at most 64 MiB.
        var fileBytes: UInt32
        /// 0 for no family, `inlineFamily` for one kept in the arena after the id, else
        /// one more than its place in `families`.
        var family: UInt16
        /// The widget id's length in bytes; ids are at most 255.
        var length: UInt8
        /// Bits 0–1 the state, 2–4 the class or corruption reason, 5 announced, 6 placeholder.
        var bits: UInt8
        /// The keybag generation the body is sealed to (present entries only).
        var keyGeneration: UInt32

        var state: UInt8 { bits & 0b11 }
        var detail: Int { Int(bits >> 2 & 0b111) }
        var announced: Bool {
            get { bits & 1 << 5 != 0 }
            set { bits = newValue ? bits | 1 << 5 : bits & ~(1 << 5) }
        }
        var hasPlaceholder: Bool { bits & 1 << 6 != 0 }
        var isPresent: Bool { state == Entry.present }
        /// A present entry whose reload is due some time and not yet announced.
        var pendingDue: Double? { isPresent && !announced && !due.isNaN ? due : nil }

        static let present: UInt8 = 0
        static let absent: UInt8 = 1
        static let corrupt: UInt8 = 2

        static func marker(state: UInt8, detail: Int = 0) -> Entry {
            Entry(
                generation: 0, due: .nan, offset: 0, fileBytes: 0, family: 0, length: 0, bits: state | UInt8(detail) << 2,
                keyGeneration: 0)
        }
    }

    private static let inlineFamily = UInt16.max

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

    /// The detail bits packed for the present file `key`, for the tests that pin the
    /// class table; `nil` unless the file is present.
    func packedClassDetail(_ key: FileDigest) -> UInt8? {
        guard let entry = entries[key], entry.isPresent else { return nil }
        return UInt8(entry.detail)
    }
    private static let corruptionReasons: [CorruptionReason] = [
        .authenticationFailure, .truncated, .badMagic, .unsupportedVersion, .wrongWidget, .wrongClass, .malformed,
    ]

    private var entries = DigestTable<Entry>()
    /// The present entries' places in `entries`, in widget id order.
    private var order = WidgetOrder()
    /// Every present entry's widget id bytes (and any family not interned), back to back.
    private var arena: [UInt8] = []
    /// Bytes of `arena` no entry points at any more; compacted when they are most of it.
    private var garbage = 0
    /// Interned families: providers use a handful of names for thousands of widgets.
    private var families: [String] = []
    private var familyCodes: [String: UInt16] = [:]
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
    var count: Int { entries.count }

    /// What is known of the file `key`, or `nil` if it was never looked at.
    subscript(key: FileDigest) -> Verdict? {
        guard let entry = entries[key] else { return nil }
        switch entry.state {
        case Entry.present: return .present(summary(entry))
        case Entry.corrupt: return .corrupt(Self.corruptionReasons[entry.detail])
        default: return .absent
        }
    }

    /// The file size recorded for `key` if it is present.
    func fileBytes(_ key: FileDigest) -> Int? {
        guard let entry = entries[key], entry.isPresent else { return nil }
        return Int(entry.fileBytes)
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

    /// Notes that a write or a delete is about to change file `key`: from the first
    /// time, its share as the index holds it now (verified from the disk, or none) is
    /// taken as its share in the open's table, and its changes count from then on.
    mutating func touch(_ key: FileDigest) {
        guard usageSinceOpen != nil, !usageSinceOpen!.isTouched(key) else { return }
        let share: (widget: ArraySlice<UInt8>, fileBytes: Int)? = entries[key].flatMap {
            $0.isPresent ? (widget: widgetBytes($0), fileBytes: Int($0.fileBytes)) : nil
        }
        usageSinceOpen!.touch(key, share: share)
    }

    /// Records a verified or just-written file's metadata and size; its reload is not announced.
    mutating func record(_ key: FileDigest, _ metadata: TimelineMetadata, fileBytes: Int) {
        let id = Array(metadata.widget.description.utf8)
        var family: UInt16 = 0
        var inline: [UInt8] = []
        if let name = metadata.family {
            if let code = intern(name) {
                family = code
            } else {
                family = Self.inlineFamily
                inline = [UInt8(name.utf8.count)] + Array(name.utf8)
            }
        }
        let bytes = id + inline
        let old = entries[key]
        if let old { account(old, key, -1) }
        // A rewrite of the same widget keeps its place in the order; any other present
        // entry leaves it while its id is still in the arena.
        let keepsPlace = old.map { $0.isPresent && widgetBytes($0).elementsEqual(id) } ?? false
        if let old, old.isPresent, !keepsPlace { leaveOrder(entries.place(of: key)!) }
        let offset: UInt32
        if let old, old.isPresent, recordBytes(old).elementsEqual(bytes) {
            // A rewrite of the same widget: its bytes are already there.
            offset = old.offset
        } else {
            if let old { release(old) }
            offset = UInt32(arena.count)
            if arena.count + bytes.count > arena.capacity {
                // By an eighth, not doubled: spare capacity is resident under the
                // daemon's M_PERTURB (see `DigestTable`); a million ids (31 MB) sat in 51 MB.
                arena.reserveCapacity(arena.count + bytes.count + max(4096, arena.count / 8))
            }
            arena += bytes
        }
        let bits = Entry.present | Self.classDetail(metadata.protectionClass) << 2
            | (metadata.placeholder != nil ? 1 << 6 : 0)
        let entry = Entry(
            generation: metadata.generation, due: metadata.reloadDue?.timeIntervalSinceReferenceDate ?? .nan,
            offset: offset, fileBytes: UInt32(clamping: fileBytes), family: family, length: UInt8(id.count), bits: bits,
            keyGeneration: metadata.keyGeneration)
        entries[key] = entry
        if !keepsPlace { joinOrder(entries.place(of: key)!) }
        account(entry, key, 1)
        dropped(old)
        added(entry)
        compactIfWorthIt()
    }

    /// Records that no file `key` exists.
    mutating func recordAbsent(_ key: FileDigest) { replace(key, with: .marker(state: Entry.absent)) }

    /// Records that the file `key` failed verification.
    mutating func recordCorrupt(_ key: FileDigest, _ reason: CorruptionReason) {
        replace(key, with: .marker(state: Entry.corrupt, detail: Self.corruptionReasons.firstIndex(of: reason)!))
    }

    /// Forgets the file `key`: the next question about it goes to the disk.
    mutating func forget(_ key: FileDigest) { replace(key, with: nil) }

    /// Makes room for `count` files, e.g. a directory's worth before indexing it.
    mutating func reserveCapacity(_ count: Int) { entries.reserveCapacity(count) }

    /// Forgets every file recorded as absent: once every file is indexed, absence is
    /// implied, and lookups of widgets never stored must not fill the table.
    mutating func removeAbsent() {
        // Called once the index is complete: the burst of inserts into the id order is over.
        order.pack()
        // Usually there are none: spare a pass over the whole table then.
        guard entries.values.contains(where: { $0.state == Entry.absent }) else { return }
        // The kept entries close up in their order: each one's new place is the number
        // of kept ones before it, and the order's places follow.
        var renumbered = [UInt32](repeating: 0, count: entries.count)
        var kept: UInt32 = 0
        for (place, entry) in entries.values.enumerated() where entry.state != Entry.absent {
            renumbered[place] = kept
            kept += 1
        }
        entries.removeAll { $0.state == Entry.absent }
        order.renumber { renumbered[Int($0)] }
    }

    /// Forgets every file.
    mutating func removeAll() {
        self = TimelineIndex()
    }

    /// Every present file's summary, in no particular order.
    var summaries: [Summary] { entries.values.filter(\.isPresent).map(summary) }

    /// The present widgets of `provider` and `kind` (`nil`: any), sorted. With a
    /// provider, only its range of the id order is walked; the kind is matched on the
    /// ids' bytes in place, so a walk allocates only for matches.
    func widgets(provider: String?, kind: String?) -> [WidgetID] {
        let prefix = provider.map { Array($0.utf8) + [UInt8(ascii: "/")] }
        let kind = kind.map { Array($0.utf8) }
        var found: [WidgetID] = []
        withIDs { id in
            let start = prefix.map { prefix in order.lowerBound { id($0).lexicographicallyPrecedes(prefix) } }
            order.walk(from: start ?? order.start) { place in
                let candidate = id(place)
                if let prefix, !candidate.starts(with: prefix) { return false }
                if let kind {
                    // Recorded ids are valid: PROVIDER/KIND[#INSTANCE].
                    let slash = candidate.firstIndex(of: UInt8(ascii: "/"))!
                    let end = candidate[(slash + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? candidate.endIndex
                    guard candidate[(slash + 1)..<end].elementsEqual(kind) else { return true }
                }
                found.append(widget(entries.values[Int(place)]))
                return true
            }
        }
        return found
    }

    /// A page of the present files in widget id order: at most `limit` whose id sorts
    /// after `after` (nil: from the first) and whose provider is `provider` (nil: any),
    /// and whether more follow. A binary search of the id order finds the page's first
    /// id (a provider's ids are one range of it, from "PROVIDER/" on) and a walk reads
    /// the page: the cost is the page's, not the store's.
    func page(after: WidgetID?, provider: String?, limit: Int) -> (summaries: [Summary], more: Bool) {
        precondition(limit > 0, "a page holds at least one widget")
        let after = after.map { Array($0.description.utf8) }
        let prefix = provider.map { Array($0.utf8) + [UInt8(ascii: "/")] }
        var page: [Summary] = []
        // A client names the limit: room for a large page is made as it fills.
        page.reserveCapacity(min(limit, Self.insertedPageLimit))
        var more = false
        withIDs { id in
            // Both bounds hold for a prefix of the order, and so does either of them.
            let start = order.lowerBound { place in
                let candidate = id(place)
                if let prefix, candidate.lexicographicallyPrecedes(prefix) { return true }
                if let after, !after.lexicographicallyPrecedes(candidate) { return true }
                return false
            }
            order.walk(from: start) { place in
                if let prefix, !id(place).starts(with: prefix) { return false }
                guard page.count < limit else {
                    more = true
                    return false
                }
                page.append(summary(entries.values[Int(place)]))
                return true
            }
        }
        return (page, more)
    }

    /// Pages up to this size have their room made at once; larger ones grow as they fill.
    static let insertedPageLimit = 1024

    // MARK: Reload schedule

    /// Records that the due reload of the current generation of `key` was announced.
    mutating func markAnnounced(_ key: FileDigest) {
        guard var entry = entries[key], entry.isPresent, !entry.announced else { return }
        dropped(entry)
        entry.announced = true
        entries[key] = entry
    }

    /// The widgets whose reload is due at `now` and not yet announced, sorted.
    func unannouncedDue(at now: Date) -> [WidgetID] {
        let limit = now.timeIntervalSinceReferenceDate
        return entries.values.filter { $0.pendingDue.map { $0 <= limit } == true }.map { widget($0) }.sorted()
    }

    /// The earliest unannounced reload due after `now`, for the wake timer.
    mutating func nextDue(after now: Date) -> Date? {
        let now = now.timeIntervalSinceReferenceDate
        if let known = nextReloadDue.answer(after: now) {
            return known.map(Date.init(timeIntervalSinceReferenceDate:))
        }
        var answer: Double?
        for entry in entries.values {
            guard let due = entry.pendingDue, due > now else { continue }
            if answer.map({ due < $0 }) ?? true { answer = due }
        }
        nextReloadDue.remember(answer, after: now)
        return answer.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// An entry joined the unannounced ones: it may be the new earliest.
    private mutating func added(_ entry: Entry) {
        guard let due = entry.pendingDue else { return }
        nextReloadDue.added(due)
    }

    /// An entry left the unannounced ones: if it was the earliest, ask again.
    private mutating func dropped(_ entry: Entry?) {
        guard let due = entry?.pendingDue else { return }
        nextReloadDue.dropped(due)
    }

    // MARK: Storage

    private mutating func replace(_ key: FileDigest, with entry: Entry?) {
        let old = entries[key]
        if let old { account(old, key, -1) }
        if let old, let place = entries.place(of: key) {
            if old.isPresent { leaveOrder(place) }
            // Removing moves the table's last entry into the hole: its place in the order follows.
            let last = entries.count - 1
            if entry == nil, place != last, entries.values[last].isPresent {
                let moved = entries.values[last]
                let arena = arena
                let values = entries.values
                order.move(UInt32(last), to: UInt32(place)) {
                    Self.widgetBytes(values[Int($0)], in: arena).lexicographicallyPrecedes(Self.widgetBytes(moved, in: arena))
                }
            }
        }
        entries[key] = entry
        if let old { release(old) }
        dropped(old)
        compactIfWorthIt()
    }

    /// Adds (`sign` 1) or removes (-1) a present entry's share of its provider's usage
    /// and of its key generation's files (and of the usage since the open, for a
    /// touched file `key`). Entries recorded by `replace` are markers, which count for nobody.
    private mutating func account(_ entry: Entry, _ key: FileDigest, _ sign: Int) {
        guard entry.isPresent else { return }
        usages.count(widget: widgetBytes(entry), fileBytes: Int(entry.fileBytes), sign)
        if usageSinceOpen?.isTouched(key) == true {
            usageSinceOpen!.count(widget: widgetBytes(entry), fileBytes: Int(entry.fileBytes), sign)
        }
        if Self.protectionClass(detail: entry.detail) != .none { keyGenerations.count(entry.keyGeneration, sign) }
    }

    /// Adds the present entry at `place` of the table to the id order.
    private mutating func joinOrder(_ place: Int) {
        let arena = arena
        let values = entries.values
        let id = Self.widgetBytes(values[place], in: arena)
        order.insert(UInt32(place)) { Self.widgetBytes(values[Int($0)], in: arena).lexicographicallyPrecedes(id) }
    }

    /// Removes the present entry at `place` of the table from the id order.
    private mutating func leaveOrder(_ place: Int) {
        let arena = arena
        let values = entries.values
        let id = Self.widgetBytes(values[place], in: arena)
        order.remove(UInt32(place)) { Self.widgetBytes(values[Int($0)], in: arena).lexicographicallyPrecedes(id) }
    }

    /// Calls `body` with the id of a table place, read in place from the arena.
    private func withIDs(_ body: ((UInt32) -> Slice<UnsafeBufferPointer<UInt8>>) -> Void) {
        entries.values.withUnsafeBufferPointer { values in
            arena.withUnsafeBufferPointer { arena in
                body { place in
                    let entry = values[Int(place)]
                    return arena[Int(entry.offset)..<Int(entry.offset) + Int(entry.length)]
                }
            }
        }
    }

    /// A present entry's widget id bytes.
    private func widgetBytes(_ entry: Entry) -> ArraySlice<UInt8> { Self.widgetBytes(entry, in: arena) }

    private static func widgetBytes(_ entry: Entry, in arena: [UInt8]) -> ArraySlice<UInt8> {
        arena[Int(entry.offset)..<Int(entry.offset) + Int(entry.length)]
    }

    /// Counts an entry's arena bytes as garbage (the entry is going).
    private mutating func release(_ entry: Entry) {
        guard entry.isPresent else { return }
        garbage += recordBytes(entry).count
    }

    /// An entry's bytes in the arena: the id, then the inline family if any.
    private func recordBytes(_ entry: Entry) -> ArraySlice<UInt8> { Self.recordBytes(entry, in: arena) }

    private static func recordBytes(_ entry: Entry, in arena: [UInt8]) -> ArraySlice<UInt8> {
        let start = Int(entry.offset)
        var end = start + Int(entry.length)
        if entry.family == inlineFamily { end += 1 + Int(arena[end]) }
        return arena[start..<end]
    }

    /// Rebuilds the arena once most of it is garbage (deleted or re-keyed widgets).
    private mutating func compactIfWorthIt() {
        guard garbage > 64 << 10, garbage * 2 > arena.count else { return }
        let old = arena
        var compacted: [UInt8] = []
        compacted.reserveCapacity(arena.count - garbage)
        entries.updateValues { entry in
            guard entry.isPresent else { return }
            let bytes = Self.recordBytes(entry, in: old)
            entry.offset = UInt32(compacted.count)
            compacted += bytes
        }
        arena = compacted
        garbage = 0
    }

    /// The code of an interned family, or `nil` once the table is full.
    private mutating func intern(_ family: String) -> UInt16? {
        if let code = familyCodes[family] { return code }
        guard families.count < Int(Self.inlineFamily) - 1 else { return nil }
        families.append(family)
        let code = UInt16(families.count)
        familyCodes[family] = code
        return code
    }

    private func widget(_ entry: Entry) -> WidgetID {
        // Only ids that parsed before are recorded.
        try! WidgetID(String(decoding: widgetBytes(entry), as: UTF8.self))
    }

    private func summary(_ entry: Entry) -> Summary {
        let family: String?
        switch entry.family {
        case 0: family = nil
        case Self.inlineFamily:
            let start = Int(entry.offset) + Int(entry.length)
            family = String(decoding: arena[start + 1..<start + 1 + Int(arena[start])], as: UTF8.self)
        default: family = families[Int(entry.family) - 1]
        }
        return Summary(
            widget: widget(entry), protectionClass: Self.protectionClass(detail: entry.detail), family: family,
            generation: entry.generation,
            reloadDue: entry.due.isNaN ? nil : Date(timeIntervalSinceReferenceDate: entry.due),
            hasPlaceholder: entry.hasPlaceholder, keyGeneration: entry.keyGeneration)
    }
}
