import StoreLedger

/// The placeholders of recently written or read timelines, so that a rewrite which
/// keeps its placeholder, or a presentation that shows it, rarely reads the file again.
///
/// Bounded by count and bytes: the index keeps no placeholder, and this cache must not
/// bring back memory that grows with what is stored. Placeholders are class `none` and
/// contain no private data by contract (DESIGN §2), so plain arrays are fine here.
struct PlaceholderCache {
    private struct Entry {
        let bytes: [UInt8]
        let generation: UInt64
        var lastUse: UInt64
    }

    private var entries: [FileDigest: Entry] = [:]
    private var bytes = 0
    private var tick: UInt64 = 0
    /// The most placeholders kept.
    let countLimit: Int
    /// The most placeholder bytes kept (one placeholder may be up to 64 KiB).
    let byteLimit: Int

    init(countLimit: Int = 256, byteLimit: Int = 1 << 20) {
        self.countLimit = countLimit
        self.byteLimit = byteLimit
    }

    /// How many placeholders are cached.
    var count: Int { entries.count }

    /// The placeholder of generation `generation` of `key`, if cached.
    mutating func placeholder(_ key: FileDigest, generation: UInt64) -> [UInt8]? {
        guard var entry = entries[key], entry.generation == generation else { return nil }
        tick += 1
        entry.lastUse = tick
        entries[key] = entry
        return entry.bytes
    }

    /// Remembers the placeholder of a generation just written or verified (`nil`: it has none).
    mutating func set(_ key: FileDigest, _ placeholder: [UInt8]?, generation: UInt64) {
        remove(key)
        guard let placeholder, placeholder.count <= byteLimit else { return }
        tick += 1
        entries[key] = Entry(bytes: placeholder, generation: generation, lastUse: tick)
        bytes += placeholder.count
        while entries.count > countLimit || bytes > byteLimit {
            // A linear pass: the cache is small, and only an addition evicts.
            guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { break }
            remove(oldest)
        }
    }

    /// Forgets the placeholder of `key`.
    mutating func remove(_ key: FileDigest) {
        guard let old = entries.removeValue(forKey: key) else { return }
        bytes -= old.bytes.count
    }

    /// Forgets every placeholder.
    mutating func removeAll() {
        entries = [:]
        bytes = 0
    }
}
