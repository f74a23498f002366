/// How the read rows are sampled: every server measured once per round, the rounds
/// interleaved, and each server's median round reported.
///
/// Why: with one sample per server, a swing of this shared machine (another engineer's
/// build starting) during one server's row decided the comparison, and two runs of the
/// same binaries disagreed on which server was ahead. Interleaving exposes every server
/// to the same swings; the median round drops the rounds a swing spoiled, whichever
/// server they fell on. Each round also starts with a different server, so none is
/// always the first measured after a change of connection count.
package enum ReadRounds {
    /// The order of the servers (indices into the servers measured) in round `round`
    /// (counted from 0): rotated by one each round.
    package static func order(serverCount: Int, round: Int) -> [Int] {
        guard serverCount > 0 else { return [] }
        return (0..<serverCount).map { ($0 + round) % serverCount }
    }

    /// The median of a server's rounds by throughput, whole (its latency and CPU are
    /// that round's, not medians taken apart, so the figures of a row belong together).
    /// With an even count, the lower of the two middle rounds.
    package static func median<Sample>(_ rounds: [Sample], by throughput: (Sample) -> Double) -> Sample? {
        guard !rounds.isEmpty else { return nil }
        let sorted = rounds.sorted { throughput($0) < throughput($1) }
        return sorted[(sorted.count - 1) / 2]
    }
}
