import StoreFiles

/// What each provider stored at an orderly stop (its widgets and their files' bytes),
/// carried by the catalog's head (version 3, `GenerationLedger`) under its MAC, so that
/// the next start knows every provider's usage before it has read every file.
///
/// Plain data to the ledger, which neither makes nor checks it: the store hands it in
/// at the stop and takes it out at the next open, and decides whether to trust it.
///
/// ```
/// table   count u32 | per provider, sorted by id and each once: id length u8 | id | widgets u64 | bytes u64
/// ```
package struct UsageTable: Equatable {
    /// One provider's row.
    package struct Row: Equatable {
        package var widgets: UInt64
        package var bytes: UInt64

        package init(widgets: UInt64, bytes: UInt64) {
            self.widgets = widgets
            self.bytes = bytes
        }
    }

    /// The rows by provider id.
    package var rows: [String: Row]

    package init(rows: [String: Row] = [:]) { self.rows = rows }

    /// The longest provider id a row holds (ids are at most 255 bytes, widget ids too).
    package static let maximumIDBytes = 255

    /// Appends the table to `w`, rows sorted by the ids' bytes.
    package func write(to w: inout ByteWriter) {
        let sorted = rows.map { (Array($0.key.utf8), $0.value) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
        w.u32(UInt32(sorted.count))
        for (id, row) in sorted {
            w.u8(UInt8(id.count))
            w.raw(id)
            w.u64(row.widgets)
            w.u64(row.bytes)
        }
    }

    /// The table that fills `bytes` exactly, or `nil` if they are not one: a row
    /// cut short, bytes left over, an id empty, not UTF-8, or out of order.
    package static func read(_ bytes: ArraySlice<UInt8>) -> UsageTable? {
        var at = bytes.startIndex
        func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard bytes.endIndex - at >= count else { return nil }
            defer { at += count }
            return bytes[at..<at + count]
        }
        func u64() -> UInt64? { take(8).map { $0.reversed().reduce(0) { $0 << 8 | UInt64($1) } } }
        guard let countBytes = take(4) else { return nil }
        let count = countBytes.reversed().reduce(0) { $0 << 8 | Int($1) }
        var rows: [String: Row] = [:]
        var previous: ArraySlice<UInt8>?
        for _ in 0..<count {
            guard let length = take(1)?.first, length > 0, let id = take(Int(length)),
                let widgets = u64(), let used = u64()
            else { return nil }
            if let previous, !previous.lexicographicallyPrecedes(id) { return nil }
            guard let text = String(validating: id, as: UTF8.self) else { return nil }
            rows[text] = Row(widgets: widgets, bytes: used)
            previous = id
        }
        return at == bytes.endIndex ? UsageTable(rows: rows) : nil
    }
}
