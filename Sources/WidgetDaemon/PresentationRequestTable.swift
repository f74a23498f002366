import Glibc

/// The memory of `GetPresentation` messages: each distinct message's exact bytes and the
/// ``PresentationCache/Slot`` that answers it, so that a repeated request reaches its
/// cached reply with one lookup and no decoding.
///
/// An open-addressing table over one arena of key bytes rather than a `Dictionary`:
/// a lookup hashes the received bytes in place with a seeded multiply-mix over 8-byte
/// words (SipHash over a 100-byte request, its seed and its finalisation were ≈ 4% of
/// the daemon's CPU per cached read), then compares them with `memcmp`; it neither
/// allocates nor retains. The seed is random per process, and the table holds at most
/// ``capacity`` messages of at most ``maxMessageBytes`` each, so crafted collisions
/// cost little. When full it starts over: hosts repeat a few requests.
///
/// Requests carry a widget id and a surface, no secret, so the arena is not wiped.
struct PresentationRequestTable {
    /// The most messages remembered.
    let capacity: Int
    /// The longest message remembered.
    let maxMessageBytes: Int

    /// Per bucket: the message's hash with its top bit set (0: empty), its bytes' place
    /// in the arena, and its slot.
    private var hashes: [UInt64]
    private var offsets: [Int]
    private var lengths: [Int]
    private var slots: [PresentationCache.Slot?]
    private var arena: [UInt8] = []
    private(set) var count = 0
    private let mask: Int
    private let seed: UInt64

    init(capacity: Int, maxMessageBytes: Int, seed: UInt64 = UInt64.random(in: .min ... .max)) {
        self.capacity = max(capacity, 1)
        self.maxMessageBytes = maxMessageBytes
        // At most half full, so probes stay short.
        var buckets = 2
        while buckets < 2 * self.capacity { buckets *= 2 }
        mask = buckets - 1
        hashes = Array(repeating: 0, count: buckets)
        offsets = Array(repeating: 0, count: buckets)
        lengths = Array(repeating: 0, count: buckets)
        slots = Array(repeating: nil, count: buckets)
        self.seed = seed
    }

    /// The slot remembered for exactly these bytes.
    @inline(__always)
    func slot(for message: UnsafeRawBufferPointer) -> PresentationCache.Slot? {
        // Never remembered (a write's message, say): not worth hashing.
        guard message.count <= maxMessageBytes else { return nil }
        guard let bucket = bucket(of: message, hash: hash(message)), hashes[bucket] != 0 else { return nil }
        return slots[bucket]
    }

    /// Remembers `slot` for `message` (a copy of its bytes), replacing what was remembered
    /// for the same bytes; a message over ``maxMessageBytes`` is not remembered.
    mutating func remember(_ message: UnsafeRawBufferPointer, slot: PresentationCache.Slot) {
        guard message.count <= maxMessageBytes else { return }
        let hash = hash(message)
        if let bucket = bucket(of: message, hash: hash), hashes[bucket] != 0 {
            slots[bucket] = slot
            return
        }
        if count >= capacity { removeAll() }
        guard let bucket = bucket(of: message, hash: hash) else { return }
        hashes[bucket] = hash
        offsets[bucket] = arena.count
        lengths[bucket] = message.count
        slots[bucket] = slot
        arena.append(contentsOf: message.assumingMemoryBound(to: UInt8.self))
        count += 1
    }

    /// Forgets every message.
    mutating func removeAll() {
        for index in hashes.indices {
            hashes[index] = 0
            slots[index] = nil
        }
        arena.removeAll(keepingCapacity: true)
        count = 0
    }

    /// The bucket holding `message`, or the empty one where it would go; `nil` only if
    /// the table is full, which ``remember(_:slot:)`` never lets happen.
    private func bucket(of message: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
        var index = Int(truncatingIfNeeded: hash) & mask
        for _ in 0...mask {
            let found = hashes[index]
            if found == 0 { return index }
            if found == hash, lengths[index] == message.count, equals(message, at: offsets[index]) { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    private func equals(_ message: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard let base = message.baseAddress, message.count > 0 else { return true }
        return arena.withUnsafeBytes { memcmp($0.baseAddress! + offset, base, message.count) == 0 }
    }

    /// A seeded multiply-mix over 8-byte words; the top bit is set so that 0 means empty.
    private func hash(_ message: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = seed ^ (UInt64(message.count) &* multiplier)
        var offset = 0
        while offset + 8 <= message.count {
            hash = (hash ^ message.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < message.count {
            tail |= UInt64(message[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail) &* multiplier
        hash ^= hash >> 32
        return hash | 1 << 63
    }
}
