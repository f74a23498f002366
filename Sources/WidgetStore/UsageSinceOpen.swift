import StoreLedger

/// Each provider's usage while the index is still partial, known because the catalog's
/// head carried a usage table at open (`UsageTable`: the files as folded, the open's
/// replay included; exact, or counting too much), corrected by every file changed since. A view of the index's entry table
/// (`TimelineIndex`), kept in step like `ProviderUsageTally`: for each file a write or
/// a delete touched since the start, its share when first touched is taken off the
/// table and its share now is added. So the quota needs no pass over the store, and
/// what the index later finds of an untouched file changes nothing here (the table
/// counts it already); once the index is complete its own tally takes over.
///
/// It holds a key per file touched before the index completes, and nothing after.
struct UsageSinceOpen {
    /// The table the catalog carried at open.
    private var table: [String: ProviderUsage]
    /// The touched files' shares when first touched.
    private var before = ProviderUsageTally()
    /// The touched files' shares now.
    private var now = ProviderUsageTally()
    /// The touched files.
    private var touched = Set<FileDigest>()

    init(_ table: UsageTable) {
        self.table = table.rows.mapValues { ProviderUsage(widgets: Int(clamping: $0.widgets), bytes: Int(clamping: $0.bytes)) }
    }

    /// What `provider`'s files take.
    func usage(of provider: String) -> ProviderUsage {
        let stopped = table[provider] ?? ProviderUsage()
        let (taken, added) = (before.usage(of: provider), now.usage(of: provider))
        return ProviderUsage(
            widgets: stopped.widgets - taken.widgets + added.widgets, bytes: stopped.bytes - taken.bytes + added.bytes)
    }

    /// Every provider's usage, as an orderly stop writes it (`GenerationLedger.save(usage:)`).
    var all: UsageTable {
        var rows: [String: UsageTable.Row] = [:]
        for provider in Set(table.keys).union(before.providers).union(now.providers) {
            let usage = usage(of: provider)
            guard usage.widgets > 0 else { continue }
            rows[provider] = UsageTable.Row(widgets: UInt64(usage.widgets), bytes: UInt64(max(0, usage.bytes)))
        }
        return UsageTable(rows: rows)
    }

    /// Whether file `key` was touched.
    func isTouched(_ key: FileDigest) -> Bool { !touched.isEmpty && touched.contains(key) }

    /// Marks file `key` touched, its share now (`widget`'s id bytes and `fileBytes`, or
    /// `nil` if it counts for nobody) taken as its share in the table at open.
    mutating func touch(_ key: FileDigest, share: (widget: ArraySlice<UInt8>, fileBytes: Int)?) {
        guard touched.insert(key).inserted, let share else { return }
        before.count(widget: share.widget, fileBytes: share.fileBytes, 1)
        now.count(widget: share.widget, fileBytes: share.fileBytes, 1)
    }

    /// Adds (`sign` 1) or removes (-1) a touched file's present share.
    mutating func count(widget: ArraySlice<UInt8>, fileBytes: Int, _ sign: Int) {
        now.count(widget: widget, fileBytes: fileBytes, sign)
    }
}
