import Glibc

/// The index's present timelines sorted by widget id, front-coded in small blocks: the
/// table of their metadata, their id order (pages, a provider's range) and the store of
/// their ids in one structure, with no per-entry key, hash slot or order place.
///
/// Each block holds up to `splitCount` entries back to back. An entry is the length
/// of the id it shares with the one before it in the block (0 for a block's first,
/// which is thus its whole id), its suffix's length and bytes, then its fields' length
/// (so that a search skips them in one step) and its fields: a flag byte, the due
/// date's 8 bytes when it has one, the generation, the file's size and the key
/// generation as varints, and the family's code (or name). Sorted neighbours
/// share most of their id (a provider's prefix, a kind), so an entry costs its id's
/// differing tail and about 7 bytes (15 with a due date).
///
/// A lookup binary-searches the blocks by their first ids, then reads one block up to
/// its id; a change splices the bytes of one entry (and the header of the one after
/// it, whose shared length depends on it) and splits a full block in two. Blocks grow
/// by a few bytes at a time, never by doubling: spare capacity is resident under the
/// daemon's `M_PERTURB` (see `DigestTable`).
struct WidgetTable {
    /// One timeline's metadata, as the index keeps it.
    struct Entry {
        var generation: UInt64
        /// `timeIntervalSinceReferenceDate` of the reload due, NaN for none.
        var due: Double
        /// The file's size in bytes; files are at most 64 MiB.
        var fileBytes: UInt32
        /// The keybag generation the body is sealed to.
        var keyGeneration: UInt32
        /// 0 for none (or one in `inlineFamily`), else one more than its interned place.
        var family: UInt32
        /// A family not interned, by its name's bytes.
        var inlineFamily: [UInt8]?
        /// The class's code (see `TimelineIndex.classDetail`), 1–4.
        var detail: UInt8
        var announced: Bool
        var hasPlaceholder: Bool

        /// Whether its reload is due some time and not yet announced.
        var pendingDue: Double? { !announced && !due.isNaN ? due : nil }
    }

    private struct Block {
        var bytes: [UInt8]
        var count: Int
        /// The first id's first 32 bytes, zero-padded (ids are printable ASCII, so the
        /// padding sorts first): the binary search compares these, in the one array of
        /// blocks, and reads a block's bytes only between two that tie.
        var head = Head()
        /// The earliest reload due of its entries not yet announced (infinity: none),
        /// so that the reload schedule's passes read only the blocks that can answer.
        var earliestDue = Double.infinity

        init(bytes: [UInt8], count: Int) {
            self.bytes = bytes
            self.count = count
            head = bytes.withUnsafeBufferPointer { Head(UnsafeBufferPointer(rebasing: $0[2..<2 + Int($0[1])])) }
            earliestDue = WidgetTable.earliestDue(bytes)
        }
    }

    /// An id's first 32 bytes as four big-endian words, so that comparing them in order
    /// compares the bytes.
    private struct Head {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        init() {}

        init(_ id: UnsafeBufferPointer<UInt8>) {
            func word(_ at: Int) -> UInt64 {
                var value: UInt64 = 0
                for i in at..<at + 8 { value = value << 8 | UInt64(i < id.count ? id[i] : 0) }
                return value
            }
            words = (word(0), word(8), word(16), word(24))
        }

        /// Negative, zero or positive as `self` sorts before, with or after `other`.
        func compare(_ other: Head) -> Int {
            if words.0 != other.words.0 { return words.0 < other.words.0 ? -1 : 1 }
            if words.1 != other.words.1 { return words.1 < other.words.1 ? -1 : 1 }
            if words.2 != other.words.2 { return words.2 < other.words.2 ? -1 : 1 }
            if words.3 != other.words.3 { return words.3 < other.words.3 ? -1 : 1 }
            return 0
        }
    }

    /// Sorted: every id in a block sorts before every id in the next.
    private var blocks: [Block] = []

    /// How many entries the table holds.
    private(set) var count = 0

    /// A block that reaches this many entries splits in two halves.
    static let splitCount = 64
    /// A block that falls below this many merges with a neighbour if both fit in half.
    private static let mergeCount = 16
    /// Room a block is given beyond its bytes when it must grow.
    private static let slack = 48

    // MARK: Reading

    /// The entry of the id `id`, if held.
    func entry(for id: [UInt8]) -> Entry? {
        guard !blocks.isEmpty else { return nil }
        return id.withUnsafeBufferPointer { target in
            blocks[blockIndex(for: target)].bytes.withUnsafeBufferPointer { bytes in
                let (start, isEqual) = Self.seek(target, in: bytes)
                guard isEqual else { return nil }
                var offset = start + 2 + Int(bytes[start + 1])
                return Self.readFields(bytes, &offset)
            }
        }
    }

    /// Where in a block's `bytes` the first entry whose id is not before `target`
    /// starts (the end if none), and whether its id is `target`. The ids are not
    /// spelled out: `matched`, the length the previous id (which sorts before `target`)
    /// shares with it, and each entry's shared length say how the entry compares,
    /// and only suffixes that start at `matched` are compared byte by byte.
    private static func seek(_ target: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> (start: Int, isEqual: Bool) {
        var offset = 0
        var matched = 0
        while offset < bytes.count {
            let shared = Int(bytes[offset])
            let suffix = Int(bytes[offset + 1])
            // Shares less with the previous id than the target does: it sorts after the target.
            if shared < matched { return (offset, false) }
            if shared == matched {
                let rest = target.count - matched
                let common = min(suffix, rest)
                var same = 0
                let suffixStart = bytes.baseAddress! + offset + 2
                let targetStart = target.baseAddress! + matched
                while same < common, suffixStart[same] == targetStart[same] { same += 1 }
                if same == suffix, same == rest { return (offset, true) }
                // Past the target: it is a prefix of this id, or differs with a greater byte.
                if same == rest || (same < suffix && suffixStart[same] > targetStart[same]) { return (offset, false) }
                matched += same
            }
            // Otherwise it sorts before the target, sharing `matched` bytes with it.
            offset = skipFields(bytes, offset + 2 + suffix)
        }
        return (bytes.count, false)
    }

    /// Calls `body` with each id and entry in id order, from the first id for which
    /// `isBefore` is false (every id if `isBefore` is nil; it holds for a prefix of the
    /// order), while `body` returns true. The id is valid only during the call.
    func walk(from isBefore: ((UnsafeBufferPointer<UInt8>) -> Bool)?, _ body: (UnsafeBufferPointer<UInt8>, Entry) -> Bool) {
        var block = 0
        if let isBefore {
            // The last block whose first id sorts before the start holds the start, or
            // ends just before it.
            var low = 0
            var high = blocks.count
            while low < high {
                let middle = (low + high) / 2
                if withFirstID(middle, isBefore) { low = middle + 1 } else { high = middle }
            }
            block = max(0, low - 1)
        }
        var skipping = isBefore != nil
        withScratch { scratch in
            while block < blocks.count {
                let goOn = blocks[block].bytes.withUnsafeBufferPointer { bytes -> Bool in
                    var offset = 0
                    while offset < bytes.count {
                        let length = Self.readID(bytes, &offset, into: scratch)
                        let id = UnsafeBufferPointer(start: UnsafePointer(scratch), count: length)
                        if skipping {
                            if isBefore!(id) {
                                offset = Self.skipFields(bytes, offset)
                                continue
                            }
                            skipping = false
                        }
                        guard body(id, Self.readFields(bytes, &offset)) else { return false }
                    }
                    return true
                }
                guard goOn else { return }
                block += 1
            }
        }
    }

    /// Calls `body` with each entry's reload due, where it has one not yet announced,
    /// in id order, and its id (empty unless `spellingIDs`; valid only during the
    /// call). Reads the flag byte and the due only (the due comes first among the
    /// fields), so that a pass over a million entries costs milliseconds.
    /// Only the blocks whose earliest pending due `reads` accepts are read.
    func forEachPendingDue(
        spellingIDs: Bool, readingBlocksWithEarliest reads: (Double) -> Bool, _ body: (UnsafeBufferPointer<UInt8>, Double) -> Void
    ) {
        let pending = Self.dueFlag | Self.announcedFlag
        withScratch { scratch in
            for block in blocks where reads(block.earliestDue) {
                block.bytes.withUnsafeBufferPointer { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        var length = 0
                        if spellingIDs {
                            length = Self.readID(bytes, &offset, into: scratch)
                        } else {
                            offset += 2 + Int(bytes[offset + 1])
                        }
                        if bytes[offset + 1] & pending == Self.dueFlag {
                            body(UnsafeBufferPointer(start: scratch, count: length), Self.readDue(bytes, offset + 2))
                        }
                        offset = Self.skipFields(bytes, offset)
                    }
                }
            }
        }
    }

    /// The earliest pending due among a block's entries (infinity: none).
    private static func earliestDue(_ bytes: [UInt8]) -> Double {
        let pending = dueFlag | announcedFlag
        return bytes.withUnsafeBufferPointer { bytes in
            var earliest = Double.infinity
            var offset = 0
            while offset < bytes.count {
                offset += 2 + Int(bytes[offset + 1])
                if bytes[offset + 1] & pending == dueFlag { earliest = min(earliest, readDue(bytes, offset + 2)) }
                offset = skipFields(bytes, offset)
            }
            return earliest
        }
    }

    // MARK: Changing

    /// Sets the entry of `id`, adding it if it is not held, and returns the entry it
    /// replaced: one search serves a writer that must account for the old entry.
    @discardableResult
    mutating func set(_ id: [UInt8], _ entry: Entry) -> Entry? {
        precondition(id.count <= 255, "widget ids are at most 255 bytes")
        guard !blocks.isEmpty else {
            var bytes: [UInt8] = []
            Self.appendHeader(id, sharing: 0, to: &bytes)
            Self.appendFields(entry, to: &bytes)
            blocks = [Block(bytes: bytes, count: 1)]
            count = 1
            return nil
        }
        let place = locate(id)
        var piece: [UInt8] = []
        Self.appendHeader(id, sharing: Self.sharedLength(place.previous, id), to: &piece)
        Self.appendFields(entry, to: &piece)
        if place.isEqual {
            let old = storedEntry(at: place)
            // The id stays: the next entry's shared length with it too.
            Self.splice(&blocks[place.block].bytes, place.start..<place.end, with: piece)
            blocks[place.block].earliestDue = Self.earliestDue(blocks[place.block].bytes)
            return old
        }
        defer { if place.start == 0 { refreshHead(place.block) } }
        var end = place.start
        if let following = place.following {
            Self.appendHeader(following.id, sharing: Self.sharedLength(id, following.id), to: &piece)
            end = following.headerEnd
        }
        Self.splice(&blocks[place.block].bytes, place.start..<end, with: piece)
        blocks[place.block].earliestDue = Self.earliestDue(blocks[place.block].bytes)
        blocks[place.block].count += 1
        count += 1
        if blocks[place.block].count >= Self.splitCount { split(place.block) }
        return nil
    }

    /// Removes the entry of `id` and returns it, if held.
    @discardableResult
    mutating func remove(_ id: [UInt8]) -> Entry? {
        guard !blocks.isEmpty else { return nil }
        let place = locate(id)
        guard place.isEqual else { return nil }
        let old = storedEntry(at: place)
        var piece: [UInt8] = []
        var end = place.end
        if let following = place.following {
            Self.appendHeader(following.id, sharing: Self.sharedLength(place.previous, following.id), to: &piece)
            end = following.headerEnd
        }
        Self.splice(&blocks[place.block].bytes, place.start..<end, with: piece)
        blocks[place.block].earliestDue = Self.earliestDue(blocks[place.block].bytes)
        blocks[place.block].count -= 1
        count -= 1
        if place.start == 0, blocks[place.block].count > 0 { refreshHead(place.block) }
        if blocks[place.block].count == 0 {
            blocks.remove(at: place.block)
        } else if blocks[place.block].count < Self.mergeCount {
            mergeIfSmall(place.block)
        }
        return old
    }

    // MARK: Blocks

    /// Where an id is or would go in its block.
    private struct Place {
        var block: Int
        /// Where the entry at or after the id starts.
        var start: Int
        /// Whether that entry is the id's.
        var isEqual: Bool
        /// Where the id's fields start (`isEqual` only).
        var fieldsStart: Int
        /// Where the id's entry ends (`isEqual`), else `start`.
        var end: Int
        /// The id of the entry before it in the block (empty if none).
        var previous: [UInt8]
        /// The entry after it in the block: its id and where its header ends.
        var following: (id: [UInt8], headerEnd: Int)?
    }

    /// The place of `id` in its block (the blocks are not empty).
    private func locate(_ id: [UInt8]) -> Place {
        id.withUnsafeBufferPointer { target in
            let block = blockIndex(for: target)
            return blocks[block].bytes.withUnsafeBufferPointer { bytes in
                let (start, isEqual) = Self.seek(target, in: bytes)
                var place = Place(block: block, start: start, isEqual: isEqual, fieldsStart: 0, end: start, previous: [], following: nil)
                withScratch { current in
                    // The ids up to the place, spelled out: the one before it and the one after.
                    var offset = 0
                    var length = 0
                    while offset < start {
                        length = Self.readID(bytes, &offset, into: current)
                        offset = Self.skipFields(bytes, offset)
                    }
                    place.previous = Array(UnsafeBufferPointer(start: current, count: length))
                    guard start < bytes.count else { return }
                    let entryLength = Self.readID(bytes, &offset, into: current)
                    if !isEqual {
                        place.following = (Array(UnsafeBufferPointer(start: current, count: entryLength)), offset)
                        return
                    }
                    place.fieldsStart = offset
                    offset = Self.skipFields(bytes, offset)
                    place.end = offset
                    if offset < bytes.count {
                        let next = Self.readID(bytes, &offset, into: current)
                        place.following = (Array(UnsafeBufferPointer(start: current, count: next)), offset)
                    }
                }
                return place
            }
        }
    }

    /// The entry at `place`, which holds its id (`isEqual`).
    private func storedEntry(at place: Place) -> Entry {
        blocks[place.block].bytes.withUnsafeBufferPointer { bytes in
            var offset = place.fieldsStart
            return Self.readFields(bytes, &offset)
        }
    }

    /// The block that holds `target` or would: the last whose first id is not after it.
    private func blockIndex(for target: UnsafeBufferPointer<UInt8>) -> Int {
        let targetHead = Head(target)
        return blocks.withUnsafeBufferPointer { blocks in
            var low = 0
            var high = blocks.count
            while low < high {
                let middle = (low + high) / 2
                var order = blocks[middle].head.compare(targetHead)
                if order == 0 {
                    order = blocks[middle].bytes.withUnsafeBufferPointer { bytes in
                        Self.compare(UnsafeBufferPointer(rebasing: bytes[2..<2 + Int(bytes[1])]), target)
                    }
                }
                let notAfter = order <= 0
                if notAfter { low = middle + 1 } else { high = middle }
            }
            return max(0, low - 1)
        }
    }

    /// `body` of block `block`'s first id, which its first entry spells whole.
    private func withFirstID<Result>(_ block: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        blocks[block].bytes.withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[2..<2 + Int(bytes[1])]))
        }
    }

    /// Takes block `block`'s head from its first id again.
    private mutating func refreshHead(_ block: Int) {
        blocks[block].head = withFirstID(block) { Head($0) }
    }

    /// Splits a full block into two halves.
    private mutating func split(_ block: Int) {
        let half = blocks[block].count / 2
        let (start, id, headerEnd) = blocks[block].bytes.withUnsafeBufferPointer { bytes in
            withScratch { current in
                var offset = 0
                for _ in 0..<half {
                    _ = Self.readID(bytes, &offset, into: current)
                    offset = Self.skipFields(bytes, offset)
                }
                let start = offset
                let length = Self.readID(bytes, &offset, into: current)
                return (start, Array(UnsafeBufferPointer(start: current, count: length)), offset)
            }
        }
        let bytes = blocks[block].bytes
        let total = blocks[block].count
        var tail: [UInt8] = []
        tail.reserveCapacity(bytes.count - headerEnd + id.count + 2 + Self.slack)
        Self.appendHeader(id, sharing: 0, to: &tail)
        tail += bytes[headerEnd...]
        var head: [UInt8] = []
        head.reserveCapacity(start + Self.slack)
        head += bytes[..<start]
        blocks[block] = Block(bytes: head, count: half)
        blocks.insert(Block(bytes: tail, count: total - half), at: block + 1)
    }

    /// Merges a small block with a neighbour if both fit in half a full one.
    private mutating func mergeIfSmall(_ block: Int) {
        let left = block + 1 < blocks.count ? block : block - 1
        guard left >= 0, blocks[left].count + blocks[left + 1].count <= Self.splitCount / 2 else { return }
        let last = lastID(left)
        let right = blocks.remove(at: left + 1)
        let first = Array(right.bytes[2..<2 + Int(right.bytes[1])])
        var merged: [UInt8] = []
        merged.reserveCapacity(blocks[left].bytes.count + right.bytes.count + Self.slack)
        merged += blocks[left].bytes
        Self.appendHeader(first, sharing: Self.sharedLength(last, first), to: &merged)
        merged += right.bytes[(2 + first.count)...]
        blocks[left] = Block(bytes: merged, count: blocks[left].count + right.count)
    }

    /// The last id of block `block`.
    private func lastID(_ block: Int) -> [UInt8] {
        blocks[block].bytes.withUnsafeBufferPointer { bytes in
            withScratch { current in
                var offset = 0
                var length = 0
                while offset < bytes.count {
                    length = Self.readID(bytes, &offset, into: current)
                    offset = Self.skipFields(bytes, offset)
                }
                return Array(UnsafeBufferPointer(start: current, count: length))
            }
        }
    }

    // MARK: Encoding

    private static let announcedFlag: UInt8 = 1 << 3
    private static let placeholderFlag: UInt8 = 1 << 4
    private static let dueFlag: UInt8 = 1 << 5
    private static let familyFlag: UInt8 = 1 << 6
    private static let inlineFamilyFlag: UInt8 = 1 << 7

    private func withScratch<Result>(_ body: (UnsafeMutablePointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { body($0.baseAddress!) }
    }

    /// Reads the id header at `offset` into `id` (whose first bytes hold the previous
    /// id) and returns the id's length; `offset` moves to the entry's fields.
    @inline(__always)
    private static func readID(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int, into id: UnsafeMutablePointer<UInt8>) -> Int {
        let shared = Int(bytes[offset])
        let suffix = Int(bytes[offset + 1])
        (id + shared).update(from: bytes.baseAddress! + offset + 2, count: suffix)
        offset += 2 + suffix
        return shared + suffix
    }

    @inline(__always)
    private static func readDue(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Double {
        var pattern: UInt64 = 0
        for i in 0..<8 { pattern |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        return Double(bitPattern: pattern)
    }

    private static func skipVarint(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int {
        var offset = offset
        while bytes[offset] & 0x80 != 0 { offset += 1 }
        return offset + 1
    }

    private static func readVarint(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// The offset after the fields starting at `offset`: their length byte says, unless
    /// they are longer than 254 bytes (an inline family).
    @inline(__always)
    private static func skipFields(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int {
        let length = Int(bytes[offset])
        if length < 255 { return offset + 1 + length }
        let flags = bytes[offset + 1]
        var offset = offset + 2
        if flags & dueFlag != 0 { offset += 8 }
        offset = skipVarint(bytes, skipVarint(bytes, skipVarint(bytes, offset)))
        if flags & familyFlag != 0 { offset = skipVarint(bytes, offset) }
        if flags & inlineFamilyFlag != 0 { offset += 1 + Int(bytes[offset]) }
        return offset
    }

    private static func readFields(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> Entry {
        let flags = bytes[offset + 1]
        offset += 2
        var due = Double.nan
        if flags & dueFlag != 0 {
            due = readDue(bytes, offset)
            offset += 8
        }
        let generation = readVarint(bytes, &offset)
        let fileBytes = UInt32(truncatingIfNeeded: readVarint(bytes, &offset))
        let keyGeneration = UInt32(truncatingIfNeeded: readVarint(bytes, &offset))
        var family: UInt32 = 0
        if flags & familyFlag != 0 { family = UInt32(truncatingIfNeeded: readVarint(bytes, &offset)) }
        var inline: [UInt8]?
        if flags & inlineFamilyFlag != 0 {
            let length = Int(bytes[offset])
            inline = Array(bytes[(offset + 1)..<(offset + 1 + length)])
            offset += 1 + length
        }
        return Entry(
            generation: generation, due: due, fileBytes: fileBytes, keyGeneration: keyGeneration, family: family,
            inlineFamily: inline, detail: flags & 0b111, announced: flags & announcedFlag != 0,
            hasPlaceholder: flags & placeholderFlag != 0)
    }

    private static func appendFields(_ entry: Entry, to bytes: inout [UInt8]) {
        var flags = entry.detail & 0b111
        if entry.announced { flags |= announcedFlag }
        if entry.hasPlaceholder { flags |= placeholderFlag }
        if !entry.due.isNaN { flags |= dueFlag }
        if entry.family != 0 { flags |= familyFlag }
        if entry.inlineFamily != nil { flags |= inlineFamilyFlag }
        let lengthAt = bytes.count
        bytes.append(0)
        bytes.append(flags)
        if !entry.due.isNaN {
            let pattern = entry.due.bitPattern
            for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: pattern >> (8 * UInt64(i)))) }
        }
        appendVarint(entry.generation, to: &bytes)
        appendVarint(UInt64(entry.fileBytes), to: &bytes)
        appendVarint(UInt64(entry.keyGeneration), to: &bytes)
        if entry.family != 0 { appendVarint(UInt64(entry.family), to: &bytes) }
        if let inline = entry.inlineFamily {
            precondition(inline.count <= 255, "a family name is at most 255 bytes")
            bytes.append(UInt8(inline.count))
            bytes += inline
        }
        bytes[lengthAt] = UInt8(min(255, bytes.count - lengthAt - 1))
    }

    private static func appendHeader(_ id: [UInt8], sharing shared: Int, to bytes: inout [UInt8]) {
        bytes.append(UInt8(shared))
        bytes.append(UInt8(id.count - shared))
        bytes += id[shared...]
    }

    private static func sharedLength(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var shared = 0
        let limit = min(a.count, b.count)
        while shared < limit, a[shared] == b[shared] { shared += 1 }
        return shared
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b` (by bytes).
    @inline(__always)
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }

    /// Replaces `range` of `bytes` by `piece`, growing the buffer by a little when it
    /// must grow at all.
    private static func splice(_ bytes: inout [UInt8], _ range: Range<Int>, with piece: [UInt8]) {
        let newCount = bytes.count - range.count + piece.count
        guard newCount > bytes.capacity else {
            bytes.replaceSubrange(range, with: piece)
            return
        }
        var grown: [UInt8] = []
        grown.reserveCapacity(newCount + slack)
        grown += bytes[..<range.lowerBound]
        grown += piece
        grown += bytes[range.upperBound...]
        bytes = grown
    }
}
