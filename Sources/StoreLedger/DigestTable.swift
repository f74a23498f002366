/// A hash table from file-name digests to small values, about half the size of a
/// `Dictionary` for the index: 4-byte slots (open addressing, linear probing) over
/// dense arrays of keys and values.
///
/// The slot count is any number, not a power of two: a key's home slot is the high
/// word of its hash times the count. So the slots are sized to the count asked for
/// (at most ¾ full, as a `Dictionary` is) rather than rounded up to the next power of two (1.3–2.7
/// slots per key, up to 10.7 bytes; here 1.3–1.7 slots, 5.3–6.7 bytes).
///
/// A `Dictionary` keeps its keys and values in buckets it holds at most ¾ full, so
/// each entry costs up to 2.7 buckets of key and value (40 bytes each for the index).
/// Here only the 4-byte slot array has that slack; keys and values are packed. The
/// keys are keyed BLAKE2b digests, so their own bits are a good hash, which a caller
/// cannot steer without the device key.
package struct DigestTable<Value> {
    package typealias Key = FileDigest

    /// The keys, packed; `values[i]` belongs to `keys[i]`.
    package private(set) var keys: [Key] = []
    /// The values, packed and mutable in place (see `updateValues`).
    package private(set) var values: [Value] = []
    /// One more than the place in `keys` of the key that lives here; 0 for empty.
    private var slots: [UInt32] = []

    /// An empty table.
    package init() {}

    /// How many keys are held.
    package var count: Int { keys.count }

    /// The value for `key`; setting `nil` removes it.
    package subscript(key: Key) -> Value? {
        get { find(key).map { values[Int(slots[$0]) - 1] } }
        set {
            if let newValue { insert(key, newValue) } else { remove(key) }
        }
    }

    /// Where `key`'s value is in `values`, if it is held. A place stays until an entry
    /// is removed: setting a key's value to `nil` moves the last entry into its hole,
    /// and `removeAll(where:)` closes up the kept ones in their order.
    package func place(of key: Key) -> Int? { find(key).map { Int(slots[$0]) - 1 } }

    /// Makes room for `count` keys at once, so that filling the table to it neither
    /// copies the arrays as they grow nor leaves their spare half allocated.
    package mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        if count * Self.loadDenominator > slots.count * Self.loadNumerator {
            rebuildSlots(capacity: max(16, count * Self.loadDenominator / Self.loadNumerator))
        }
    }

    /// Changes every value in place (their keys stay).
    package mutating func updateValues(_ body: (inout Value) -> Void) {
        for i in values.indices { body(&values[i]) }
    }

    /// Removes the entries whose value `shouldRemove` picks, rebuilding the slots.
    package mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        var kept = 0
        for i in keys.indices where !shouldRemove(values[i]) {
            keys[kept] = keys[i]
            values[kept] = values[i]
            kept += 1
        }
        keys.removeLast(keys.count - kept)
        values.removeLast(values.count - kept)
        rebuildSlots(capacity: slots.count)
    }

    // MARK: Slots

    /// The slots are at most ¾ full: linear probing then takes about 2.5 probes to find
    /// a key and 8.5 to find it missing (every file indexed is first looked up missing).
    private static var loadNumerator: Int { 3 }
    private static var loadDenominator: Int { 4 }

    private func home(_ key: Key) -> Int {
        // The digest's bits are uniform already; the multiply only spreads test keys
        // that differ in a few bits. Its high word times the slot count lands in
        // 0..<count (multiply-shift range reduction) without a division.
        let hash = (key.low ^ key.high) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hash.multipliedFullWidth(by: UInt64(slots.count)).high)
    }

    /// The slot after `slot`, wrapping around.
    private func next(_ slot: Int) -> Int { slot + 1 == slots.count ? 0 : slot + 1 }

    /// The slot holding `key`, if any.
    private func find(_ key: Key) -> Int? {
        guard !slots.isEmpty else { return nil }
        var slot = home(key)
        while slots[slot] != 0 {
            if keys[Int(slots[slot]) - 1] == key { return slot }
            slot = next(slot)
        }
        return nil
    }

    private mutating func insert(_ key: Key, _ value: Value) {
        if let slot = find(key) {
            values[Int(slots[slot]) - 1] = value
            return
        }
        if (keys.count + 1) * Self.loadDenominator > slots.count * Self.loadNumerator {
            // Grown to ⅗ full: a third more keys fit before the next rebuild.
            rebuildSlots(capacity: max(16, (keys.count + 1) * 5 / 3))
        }
        if keys.count == keys.capacity {
            // Grown by an eighth, not doubled: the daemon's malloc fills every chunk it
            // hands out (M_PERTURB, `ProcessHygiene`), so spare capacity is resident. A
            // million-entry table that outgrew its reservation by a few hundred keys
            // doubled into 48 MB of keys and values that no entry used.
            let capacity = keys.count + max(16, keys.count / 8)
            keys.reserveCapacity(capacity)
            values.reserveCapacity(capacity)
        }
        keys.append(key)
        values.append(value)
        var slot = home(key)
        while slots[slot] != 0 { slot = next(slot) }
        slots[slot] = UInt32(keys.count)
    }

    private mutating func remove(_ key: Key) {
        guard let slot = find(key) else { return }
        let place = Int(slots[slot]) - 1
        let last = keys.count - 1
        if place != last {
            // The last entry moves into the hole; its slot follows it.
            let moved = find(keys[last])!
            keys[place] = keys[last]
            values[place] = values[last]
            slots[moved] = UInt32(place + 1)
        }
        keys.removeLast()
        values.removeLast()
        // Backward-shift deletion: pull later entries of the probe run into the gap, so
        // that lookups never stop early at it (no tombstones).
        var gap = slot
        var following = next(gap)
        while slots[following] != 0 {
            let wanted = home(keys[Int(slots[following]) - 1])
            // The entry at `following` may move to `gap` unless its home lies cyclically in (gap, following].
            let stays = gap <= following ? (gap < wanted && wanted <= following) : (gap < wanted || wanted <= following)
            if !stays {
                slots[gap] = slots[following]
                gap = following
            }
            following = next(following)
        }
        slots[gap] = 0
    }

    private mutating func rebuildSlots(capacity: Int) {
        slots = [UInt32](repeating: 0, count: capacity)
        for (i, key) in keys.enumerated() {
            var slot = home(key)
            while slots[slot] != 0 { slot = next(slot) }
            slots[slot] = UInt32(i + 1)
        }
    }
}
