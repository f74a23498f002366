import StoreLedger

/// Each provider's present widgets and their files' bytes, for the quotas
/// (`ProviderQuota`): a view of the index's entry table (`TimelineIndex`), which adds
/// and removes each present entry's share as the entry comes and goes, so that a
/// quota check costs one lookup, not a pass over the store. Exact once every file
/// is indexed.
struct ProviderUsageTally {
    private var usages: [String: ProviderUsage] = [:]

    /// What `provider`'s present files take.
    func usage(of provider: String) -> ProviderUsage { usages[provider] ?? ProviderUsage() }

    /// The providers with a present file.
    var providers: Dictionary<String, ProviderUsage>.Keys { usages.keys }

    /// Every provider's usage, as an orderly stop writes it (`UsageTable`).
    var table: UsageTable {
        UsageTable(rows: usages.mapValues { UsageTable.Row(widgets: UInt64($0.widgets), bytes: UInt64(max(0, $0.bytes))) })
    }

    /// Adds (`sign` 1) or removes (-1) one present file of `widget` (a recorded id's
    /// bytes: PROVIDER/KIND[#INSTANCE]) that takes `fileBytes`.
    mutating func count(widget: ArraySlice<UInt8>, fileBytes: Int, _ sign: Int) {
        let provider = String(
            decoding: widget[..<(widget.firstIndex(of: UInt8(ascii: "/")) ?? widget.endIndex)], as: UTF8.self)
        var usage = usages[provider] ?? ProviderUsage()
        usage.widgets += sign
        usage.bytes += sign * fileBytes
        usages[provider] = usage.widgets == 0 ? nil : usage
    }
}
