import Benchmarks
import Testing

/// The read rows' sampling: rounds rotate the servers' order, and each server's row is
/// its median round, kept whole.
struct ReadRoundsTests {
    @Test func eachRoundStartsWithTheNextServer() {
        #expect(ReadRounds.order(serverCount: 3, round: 0) == [0, 1, 2])
        #expect(ReadRounds.order(serverCount: 3, round: 1) == [1, 2, 0])
        #expect(ReadRounds.order(serverCount: 3, round: 2) == [2, 0, 1])
        #expect(ReadRounds.order(serverCount: 3, round: 3) == [0, 1, 2])
        #expect(ReadRounds.order(serverCount: 0, round: 1) == [])
    }

    @Test func everyServerIsMeasuredOncePerRound() {
        for count in 1...5 {
            for round in 0..<7 {
                #expect(ReadRounds.order(serverCount: count, round: round).sorted() == Array(0..<count))
            }
        }
    }

    /// A round spoiled by a swing of the machine (either way) is not the one reported,
    /// and the reported round keeps its own latency.
    @Test func theMedianRoundIsReportedWhole() {
        let rounds = [(throughput: 250_000.0, p99: 60.0), (throughput: 90_000, p99: 900), (throughput: 210_000, p99: 70)]
        let median = ReadRounds.median(rounds, by: \.throughput)
        #expect(median?.throughput == 210_000)
        #expect(median?.p99 == 70)
    }

    static let medians: [([Double], Double)] = [
        ([5], 5),
        ([3, 1], 1),
        ([4, 1, 3, 2], 2),
        ([9, 7, 8, 1, 100], 8),
    ]

    @Test(arguments: medians)
    func medianOf(_ values: [Double], is expected: Double) {
        #expect(ReadRounds.median(values, by: { $0 }) == expected)
    }

    @Test func noRoundsHaveNoMedian() {
        #expect(ReadRounds.median([Double](), by: { $0 }) == nil)
    }
}
