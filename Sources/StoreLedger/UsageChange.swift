import FoundationEssentials
import SecureMemory

/// What one change of timeline files (a fold, a batch written straight into its files,
/// a delete) does to each provider's usage, so that the catalog's usage table
/// (`GenerationLedger.foldedUsage`) follows the files without a pass over the store.
///
/// A file counts as the index counts it (`TimelineIndex`, `ProviderUsageTally`): one
/// widget of the provider its header names, and its whole size in bytes, if it verifies
/// (its framing parses, its metadata opens, the catalog does not say it deleted);
/// otherwise for nobody. A file the store just sealed counts. A file about to be
/// replaced or removed is taken off only when it surely counted (`removing`); a doubt
/// takes off nothing, since a table may count too much (it refuses more) but never too
/// little. What cannot be judged at all (a version-1 file, which only class D's key
/// opens) makes the change unknown (`isKnown` false), and with it the table.
package struct UsageChange {
    /// Per provider: widgets and bytes added (negative: taken off).
    package private(set) var deltas: [String: (widgets: Int, bytes: Int)] = [:]
    /// Whether every file the change touched was judged.
    package private(set) var isKnown = true

    /// A change that has counted nothing yet.
    package init() {}

    /// Counts a file the store sealed for `widget` (its id's bytes), `fileBytes` long.
    package mutating func adding(widget: ArraySlice<UInt8>, fileBytes: Int) {
        count(widget, widgets: 1, bytes: fileBytes)
    }

    /// Takes off what the file `bytes` (now at `key`, about to be replaced or removed)
    /// counts for, as judged before the change: nothing if it does not exist
    /// (`bytes` nil), does not parse or names another widget than `expected` (when
    /// given), or if `ledger` says its widget was deleted or its metadata does not open
    /// under `metadataKey`.
    package mutating func removing(
        _ bytes: [UInt8]?, key: FileDigest, expected: ArraySlice<UInt8>?, ledger: GenerationLedger, metadataKey: SecureBytes
    ) {
        guard let bytes, let sealed = try? TimelineFile.parse(bytes, expected: nil, file: "") else { return }
        let widget = Array(sealed.header.widget.description.utf8)
        if let expected, !widget[...].elementsEqual(expected) { return }
        guard let verdict = try? ledger.verdict(key, generation: sealed.header.generation) else {
            // The catalog's block did not read: whether the file counts is not known.
            isKnown = false
            return
        }
        guard verdict != .deleted else { return }
        if case .version1 = sealed.keys {
            isKnown = false
            return
        }
        guard (try? TimelineFile.openMetadata(sealed, metadataKey: metadataKey, classD: nil, file: "")) != nil else { return }
        count(widget[...], widgets: -1, bytes: -bytes.count)
    }

    /// Marks the change unknown: a file changed in a way not judged here.
    package mutating func lose() { isKnown = false }

    private mutating func count(_ widget: ArraySlice<UInt8>, widgets: Int, bytes: Int) {
        let provider = String(
            decoding: widget[..<(widget.firstIndex(of: UInt8(ascii: "/")) ?? widget.endIndex)], as: UTF8.self)
        let old = deltas[provider] ?? (0, 0)
        deltas[provider] = (old.widgets + widgets, old.bytes + bytes)
    }

    /// `table` with the change applied, or `nil` if the change is unknown or a row
    /// would go below zero (the table did not describe the files: it is not trusted).
    package func applied(to table: UsageTable) -> UsageTable? {
        guard isKnown else { return nil }
        var rows = table.rows
        for (provider, delta) in deltas {
            let row = rows[provider] ?? UsageTable.Row(widgets: 0, bytes: 0)
            let widgets = Int(clamping: row.widgets) + delta.widgets
            let bytes = Int(clamping: row.bytes) + delta.bytes
            guard widgets >= 0, bytes >= 0 else { return nil }
            guard provider.utf8.count <= UsageTable.maximumIDBytes, !provider.isEmpty else { return nil }
            rows[provider] = widgets == 0 ? nil : UsageTable.Row(widgets: UInt64(widgets), bytes: UInt64(bytes))
        }
        return UsageTable(rows: rows)
    }
}
