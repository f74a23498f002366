import SecureMemory
import WidgetModel

/// Decrypted timeline bodies, in secure memory, with the purge rules of DESIGN §3.
///
/// A bounded LRU: opening a file costs an X25519 operation, so bodies are kept
/// once opened, but never more than `limit`. Each entry remembers its class and
/// whether it is **open** (class B: decrypted while unlocked, or written while
/// locked), because an open class-B body stays readable to its provider after the
/// class-B key is gone. Every body removed from the cache is zeroed first, so a
/// purge takes the plaintext with it even if some other reference were kept.
struct PlaintextCache {
    /// One cached body.
    struct Entry {
        let body: SecureBytes
        let protectionClass: ProtectionClass
        let generation: UInt64
        let isOpen: Bool
        var lastUse: UInt64
    }

    private var entries: [WidgetID: Entry] = [:]
    private var tick: UInt64 = 0
    /// The most entries kept; inserting beyond it evicts the least recently used.
    var limit: Int {
        didSet { evictToLimit() }
    }

    /// Whether only bodies in locked memory are admitted (`StoreConfiguration.requireLockedMemory`).
    var requireLockedMemory: Bool

    init(limit: Int, requireLockedMemory: Bool) {
        self.limit = limit
        self.requireLockedMemory = requireLockedMemory
    }

    /// Whether `body` may be cached: a cache keeps plaintext for long, so not in memory
    /// the kernel may swap out, unless the configuration accepts that.
    func admits(_ body: SecureBytes) -> Bool { body.isLocked || !requireLockedMemory }

    /// How many bodies are cached.
    var count: Int { entries.count }

    /// The entry for a widget, marking it as just used.
    mutating func entry(_ widget: WidgetID) -> Entry? {
        guard var found = entries[widget] else { return nil }
        tick += 1
        found.lastUse = tick
        entries[widget] = found
        return found
    }

    /// Whether a widget's body is cached (without touching its recency).
    func contains(_ widget: WidgetID) -> Bool { entries[widget] != nil }

    /// Whether a widget's body is cached and open (without touching its recency).
    func isOpen(_ widget: WidgetID) -> Bool { entries[widget]?.isOpen ?? false }

    /// Caches `body` (which the cache now owns), replacing any older entry.
    mutating func insert(_ widget: WidgetID, body: SecureBytes, protectionClass: ProtectionClass, generation: UInt64, isOpen: Bool) {
        remove(widget)
        tick += 1
        entries[widget] = Entry(body: body, protectionClass: protectionClass, generation: generation, isOpen: isOpen, lastUse: tick)
        evictToLimit()
    }

    /// Drops and zeroes one entry.
    mutating func remove(_ widget: WidgetID) {
        entries.removeValue(forKey: widget)?.body.removeAll()
    }

    /// Drops and zeroes every entry of a class, except open ones when `keepingOpen`.
    mutating func purge(_ c: ProtectionClass, keepingOpen: Bool) {
        for (widget, entry) in entries where entry.protectionClass == c && !(keepingOpen && entry.isOpen) {
            remove(widget)
        }
    }

    /// Drops and zeroes everything.
    mutating func removeAll() {
        for entry in entries.values { entry.body.removeAll() }
        entries.removeAll()
    }

    private mutating func evictToLimit() {
        while entries.count > max(limit, 0) {
            guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
            remove(oldest.key)
        }
    }
}
