/// Where in the TPM's NV memory one widgetd instance keeps its state: two indices in the
/// owner range (0x0180_0000–0x01BF_FFFF).
///
/// Two daemons sharing one TPM (the system daemon and a per-user one, or two users) need
/// different indices, or one's wipe would end the other's blobs and one's increments
/// would make the other's files look rolled back. So each store gets its own pair,
/// chosen when the store is created from the indices the TPM has free
/// (``TPM2Device/chooseFreeIndices(random:)``), kept in `STATE/tpm2-indices` (read before
/// the device key can be unsealed) and recorded in the keybag under its MAC, so a state
/// directory pointed at another counter is refused at open.
package struct TPM2Indices: Sendable, Equatable, Hashable {
    /// The monotonic counter that anchors the keybag and the catalog.
    package let counter: UInt32
    /// The storage seed: 32 random bytes that make the primary key unique to this
    /// installation; replaced at a wipe, which ends every blob sealed before.
    package let storageSeed: UInt32

    /// Two explicit indices.
    package init(counter: UInt32, storageSeed: UInt32) {
        self.counter = counter
        self.storageSeed = storageSeed
    }

    /// The one fixed pair every store used before indices were chosen per store
    /// ("WD" in the owner range): 0x0180_5744 and 0x0180_5745. A store whose state
    /// directory names no indices (`STATE/tpm2-indices` absent beside a sealed blob)
    /// still uses it, until its next wipe chooses a pair of its own.
    package static let standard = TPM2Indices(counter: 0x0180_5744, storageSeed: 0x0180_5745)

    /// Where chosen pairs lie: 0x0180_5800–0x0180_FFFF, inside the owner range and
    /// outside ``standard``, as (even counter, odd seed) pairs: 14 336 of them.
    package static let chosenRange: ClosedRange<UInt32> = 0x0180_5800...0x0180_FFFF

    /// How many pairs ``chosenRange`` holds.
    static var pairCount: UInt32 { (chosenRange.upperBound - chosenRange.lowerBound + 1) / 2 }

    /// The `n`th pair of ``chosenRange`` (`n` below ``pairCount``).
    static func pair(_ n: UInt32) -> TPM2Indices {
        let counter = chosenRange.lowerBound + 2 * n
        return TPM2Indices(counter: counter, storageSeed: counter + 1)
    }

    /// A pair of ``chosenRange`` neither of whose indices is in `defined`, drawn with
    /// `random` (uniform over `0..<bound`), or `nil` when every pair is taken.
    ///
    /// Random rather than the first free pair: two instances created at the same time
    /// on one TPM would otherwise both see the same first pair free.
    package static func choose(avoiding defined: Set<UInt32>, random: (UInt32) -> UInt32) -> TPM2Indices? {
        let count = pairCount
        let start = random(count)
        for step in 0..<count {
            let candidate = pair((start + step) % count)
            if !defined.contains(candidate.counter) && !defined.contains(candidate.storageSeed) { return candidate }
        }
        return nil
    }

    // MARK: The state directory's record

    /// `STATE/tpm2-indices`: what tells a start which indices its store's state is in.
    package static let fileName = "tpm2-indices"
    private static let magic = Array("WTPI".utf8)
    private static let version: UInt8 = 1

    /// The file's header: `"WTPI"`, version 1, counter and seed (big-endian u32 each);
    /// the indices' auth value (32 bytes) follows it in the file. Not authenticated by
    /// itself: the keybag records ``recorded`` under its MAC.
    package var fileBytes: [UInt8] { Self.magic + [Self.version] + recorded }
    /// The header's length.
    package static let fileHeaderCount = 13

    /// The 8 bytes the keybag records (counter, then seed, big-endian).
    package var recorded: [UInt8] {
        [counter, storageSeed].flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    }

    /// Reads the header ``fileBytes``; `nil` for anything else.
    package init?(fileBytes bytes: [UInt8]) {
        guard bytes.count == Self.fileHeaderCount, Array(bytes.prefix(4)) == Self.magic, bytes[4] == Self.version else { return nil }
        func u32(_ at: Int) -> UInt32 { bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let indices = TPM2Indices(counter: u32(5), storageSeed: u32(9))
        // Only indices widgetd would have chosen: never another program's by a file's say-so.
        guard Self.chosenRange.contains(indices.counter), indices.storageSeed == indices.counter + 1,
            indices.counter % 2 == Self.chosenRange.lowerBound % 2
        else { return nil }
        self = indices
    }
}
