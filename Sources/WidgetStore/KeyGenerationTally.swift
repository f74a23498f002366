/// How many present files of classes A, B and C are sealed to each keybag key
/// generation: a view of the index's entry table (`TimelineIndex`), kept in step with
/// every change, so the store can tell which old generations no file needs any more
/// without reading a file.
struct KeyGenerationTally {
    private var counts: [UInt32: Int] = [:]

    /// The key generations some counted file is sealed to.
    var inUse: Set<UInt32> { Set(counts.keys) }

    /// Adds (`sign` 1) or removes (-1) one file sealed to `generation`.
    mutating func count(_ generation: UInt32, _ sign: Int) {
        let count = counts[generation, default: 0] + sign
        counts[generation] = count == 0 ? nil : count
    }
}
