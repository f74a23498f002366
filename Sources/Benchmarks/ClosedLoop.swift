import Foundation

/// What one closed-loop measurement found.
package struct LoopResult: Sendable {
    /// Operations completed per second, all workers together.
    package let throughput: Double
    /// Median latency, microseconds.
    package let p50: Double
    /// 99th percentile latency, microseconds.
    package let p99: Double
    /// 99.9th percentile latency, microseconds.
    package var p999: Double = 0
    /// Mean latency of the measured operations, microseconds. A fair closed loop has
    /// connections / throughput (Little's law); a store that starves some writers has
    /// less, since a connection that waits for the whole run completes nothing to count.
    package var mean: Double = 0
    /// Operations measured.
    package let count: Int
    /// Operations completed in all, warm-up included (what a server's CPU time covers).
    package var completed: Int = 0
    /// Workers (connections) starved: each measured fewer than a tenth of the fair
    /// share (all measured operations over the workers). A store that serves some
    /// writers and lets the others wait keeps its percentiles low; this counts them.
    package var starved: Int = 0

    /// The workers among `perWorker` (operations measured by each) that were starved.
    static func starved(_ perWorker: [Int]) -> Int {
        let fairShare = Double(perWorker.reduce(0, +)) / Double(max(perWorker.count, 1))
        return perWorker.filter { Double($0) < fairShare / 10 }.count
    }
}

/// Runs `workers` threads, each doing one operation after another (closed loop: a new
/// operation starts when the last one is answered), for `duration` seconds after a
/// short warm-up, and reports throughput and latency percentiles.
///
/// Every store in the write benchmark is measured by this one function, so differences
/// between its rows are the stores', not the harness's. Reads use ``MultiplexedLoop``,
/// and this too for the client shape of separate host processes
/// (``ReadClientShape/threadPerConnection``).
enum ClosedLoop {
    /// One worker's operation; made on its own thread by `makeOperation(workerIndex)`.
    typealias Operation = () throws -> Void

    static func run(
        workers: Int, duration: Double, warmUp: Double = 0.2,
        makeOperation: @escaping @Sendable (Int) throws -> Operation
    ) throws -> LoopResult {
        let shared = Shared(workers: workers)
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<workers {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var latencies: [UInt64] = []
                latencies.reserveCapacity(1 << 16)
                var completed = 0
                do {
                    let operation = try makeOperation(index)
                    ready.signal()
                    go.wait()
                    let warmEnd = shared.start + UInt64(warmUp * 1e9)
                    let end = warmEnd + UInt64(duration * 1e9)
                    while true {
                        let before = Clock.nanoseconds()
                        if before >= end { break }
                        try operation()
                        completed += 1
                        let after = Clock.nanoseconds()
                        if before >= warmEnd { latencies.append(after - before) }
                    }
                } catch {
                    shared.fail(error)
                    ready.signal()
                }
                shared.deliver(index, latencies, completed: completed)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<workers { ready.wait() }
        shared.start = Clock.nanoseconds()
        for _ in 0..<workers { go.signal() }
        done.wait()
        if let error = shared.error { throw error }
        var all = shared.latencies.flatMap { $0 }
        guard !all.isEmpty else { throw BenchError("no operation completed") }
        all.sort()
        func percentile(_ p: Double) -> Double {
            Double(all[min(all.count - 1, Int(Double(all.count) * p))]) / 1000
        }
        var result = LoopResult(
            throughput: Double(all.count) / duration, p50: percentile(0.50), p99: percentile(0.99), count: all.count,
            completed: shared.completed)
        result.p999 = percentile(0.999)
        result.mean = Double(all.reduce(0, +)) / Double(all.count) / 1000
        result.starved = LoopResult.starved(shared.latencies.map(\.count))
        return result
    }

    /// State the worker threads share, behind a lock.
    private final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        var start: UInt64 = 0
        private(set) var latencies: [[UInt64]]
        private(set) var error: (any Error)?
        /// Operations completed by all workers, warm-up included.
        private(set) var completed = 0

        init(workers: Int) { latencies = Array(repeating: [], count: workers) }

        func deliver(_ index: Int, _ values: [UInt64], completed count: Int) {
            lock.lock()
            latencies[index] = values
            completed += count
            lock.unlock()
        }

        func fail(_ error: any Error) {
            lock.lock()
            if self.error == nil { self.error = error }
            lock.unlock()
        }
    }
}
