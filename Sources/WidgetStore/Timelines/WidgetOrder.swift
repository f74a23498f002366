/// The index's present entries in widget id order, so that `ListWidgets` pages and
/// `ReloadTimelines`' selection by provider cost the page (or the provider's widgets)
/// and a binary search rather than a pass over every stored timeline (a page that passed
/// over all of them would cost milliseconds at a million timelines: docs/BENCHMARKS.md).
///
/// It holds the entries' places in the index's `DigestTable` (4 bytes each), in sorted
/// runs of at most `runLimit`: every place in a run sorts before every place in the
/// next. An insertion or removal moves at most one run's places, not a million of them
/// (a 4 MB `memmove` each), and finds its run and its place in it by binary search.
///
/// The order knows nothing of ids: every call that searches is given the comparison
/// of a stored place with what it looks for, as a predicate that holds for the places
/// sorting before it (true for a prefix of the order, false for the rest).
struct WidgetOrder {
    /// A place in the order: the run and the offset in it.
    struct Cursor: Equatable {
        var run: Int
        var offset: Int
    }

    /// Sorted runs of table places, none empty.
    private var runs: [[UInt32]] = []

    /// How many places the order holds.
    private(set) var count = 0

    /// The most places a run holds before it splits in two. A run of 1,024 places is
    /// 4 KiB, one page: an insertion moves half of one on average.
    static let runLimit = 1024

    /// Runs that shrink below this merge with their neighbour, so that deletions do
    /// not leave a long array of nearly empty runs behind.
    private static let mergeLimit = runLimit / 4

    /// The first place for which `isBefore` is false (the end if there is none).
    func lowerBound(_ isBefore: (UInt32) -> Bool) -> Cursor {
        var low = 0
        var high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(runs[middle][runs[middle].count - 1]) { low = middle + 1 } else { high = middle }
        }
        guard low < runs.count else { return end }
        var first = 0
        var last = runs[low].count
        while first < last {
            let middle = (first + last) / 2
            if isBefore(runs[low][middle]) { first = middle + 1 } else { last = middle }
        }
        return Cursor(run: low, offset: first)
    }

    /// The first place of the order.
    var start: Cursor { Cursor(run: 0, offset: 0) }

    /// The place after every place of the order.
    var end: Cursor { Cursor(run: runs.count, offset: 0) }

    /// Calls `body` with each place from `cursor` on, in order, while it returns true.
    func walk(from cursor: Cursor, _ body: (UInt32) -> Bool) {
        var run = cursor.run
        var offset = cursor.offset
        while run < runs.count {
            let places = runs[run]
            while offset < places.count {
                guard body(places[offset]) else { return }
                offset += 1
            }
            run += 1
            offset = 0
        }
    }

    /// Adds `place`, which sorts after exactly the places for which `isBefore` holds.
    mutating func insert(_ place: UInt32, isBefore: (UInt32) -> Bool) {
        count += 1
        guard !runs.isEmpty else {
            runs = [[place]]
            return
        }
        var cursor = lowerBound(isBefore)
        if cursor.run == runs.count {
            // After every run: at the end of the last.
            cursor = Cursor(run: runs.count - 1, offset: runs[runs.count - 1].count)
        }
        runs[cursor.run].insert(place, at: cursor.offset)
        if runs[cursor.run].count >= Self.runLimit { split(cursor.run) }
    }

    /// Removes `place`, which sorts after exactly the places for which `isBefore` holds
    /// (and among places of the same id, anywhere).
    mutating func remove(_ place: UInt32, isBefore: (UInt32) -> Bool) {
        let cursor = find(place, isBefore: isBefore)
        runs[cursor.run].remove(at: cursor.offset)
        count -= 1
        if runs[cursor.run].isEmpty {
            runs.remove(at: cursor.run)
        } else if runs[cursor.run].count < Self.mergeLimit {
            mergeIfSmall(cursor.run)
        }
    }

    /// Puts `new` where `old` was: the table moved an entry, its id stays. `isBefore`
    /// holds for the places sorting before that id.
    mutating func move(_ old: UInt32, to new: UInt32, isBefore: (UInt32) -> Bool) {
        let cursor = find(old, isBefore: isBefore)
        runs[cursor.run][cursor.offset] = new
    }

    /// Replaces every place by `transform` of it, keeping the order: the table renumbered
    /// its entries (their ids stay).
    mutating func renumber(_ transform: (UInt32) -> UInt32) {
        for run in runs.indices {
            for offset in runs[run].indices { runs[run][offset] = transform(runs[run][offset]) }
        }
    }

    /// Rewrites the runs ⅞ full, each in a buffer of its own: inserts in random order
    /// leave them about 70% full (a run splits into two halves), and the heap's holes
    /// between them. Worth it once a burst of inserts is over (the index complete).
    mutating func pack() {
        let fill = Self.runLimit * 7 / 8
        var packed: [[UInt32]] = []
        packed.reserveCapacity((count + fill - 1) / fill)
        var run: [UInt32] = []
        for old in runs.indices {
            for place in runs[old] {
                if run.isEmpty { run.reserveCapacity(Self.runLimit) }
                run.append(place)
                if run.count == fill {
                    packed.append(run)
                    run = []
                }
            }
            // Each old run goes as soon as it is copied, so the two never coexist whole.
            runs[old] = []
        }
        if !run.isEmpty { packed.append(run) }
        runs = packed
    }

    /// Where `place` is: the first place of its id on, up to itself.
    private func find(_ place: UInt32, isBefore: (UInt32) -> Bool) -> Cursor {
        var cursor = lowerBound(isBefore)
        while true {
            // The index keeps the order exact: a missing place is a bug, not an input.
            precondition(cursor.run < runs.count, "a place the order does not hold")
            if runs[cursor.run][cursor.offset] == place { return cursor }
            cursor.offset += 1
            if cursor.offset == runs[cursor.run].count { cursor = Cursor(run: cursor.run + 1, offset: 0) }
        }
    }

    /// Splits a full run in two halves, each with room to fill again without growing.
    private mutating func split(_ run: Int) {
        let half = runs[run].count / 2
        var tail: [UInt32] = []
        tail.reserveCapacity(Self.runLimit)
        tail += runs[run][half...]
        runs[run].removeLast(runs[run].count - half)
        runs.insert(tail, at: run + 1)
    }

    /// Merges a small run into a neighbour if both fit in half a run.
    private mutating func mergeIfSmall(_ run: Int) {
        let left = run + 1 < runs.count ? run : run - 1
        guard left >= 0, runs[left].count + runs[left + 1].count <= Self.runLimit / 2 else { return }
        let right = runs.remove(at: left + 1)
        runs[left] += right
    }
}
