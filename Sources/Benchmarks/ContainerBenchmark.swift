import DequeModule
import Foundation
import Glibc
import HeapModule
import SystemPackage
import WidgetdPOSIX

/// `widgetd-bench --only containers`: our hand-written pieces against the Swift
/// ecosystem's, on the work the daemon gives them, A and B interleaved in one run.
///
/// - timers: `TimerHeap` (ours) against swift-collections' `Heap` with the same lazy
///   cancellation, for the loop's pattern: schedule a batch, cancel half, pop the due.
/// - call queue: `VarlinkConnection`'s array with a start index against `Deque`, for a
///   connection's pattern: append the calls of one read, start them in order.
/// - syscalls: `Syscall.send`/`receive` (ours) against swift-system's
///   `FileDescriptor.write`/`read`, a small message through a socket pair.
///
/// Each round measures A then B (B then A in odd rounds), each sample the thread's CPU
/// time (`CLOCK_THREAD_CPUTIME_ID`) over `repeats` passes of the workload, so that time
/// the thread spends descheduled on a loaded machine is not counted; the medians of
/// the rounds are reported, as ns per operation.
package enum ContainerBenchmark {
    /// One comparison: its name and the median ns per operation of each side.
    package struct Comparison: Sendable {
        /// What was compared.
        package let name: String
        /// Our implementation's median, ns per operation.
        package let ours: Double
        /// The package's median, ns per operation.
        package let package: Double
        /// Every round's figures, ours then the package's.
        package let rounds: [(ours: Double, package: Double)]
    }

    /// Runs every comparison for `rounds` rounds.
    package static func run(rounds: Int = 7) throws -> [Comparison] {
        [
            compare("timers: schedule 1024, cancel 512, pop due (TimerHeap vs Heap)", rounds: rounds, operations: 1024 + 512 + 512) {
                timerWorkload(OurTimers())
            } package: {
                timerWorkload(CollectionsTimers())
            },
            compare("call queue: 16 appended, 16 started, per turn (Array+start vs Deque)", rounds: rounds, operations: 32 * 4096) {
                queueWorkload(ArrayQueue())
            } package: {
                queueWorkload(DequeQueue())
            },
            try compareSyscalls(rounds: rounds),
        ]
    }

    /// The comparisons as a Markdown table.
    package static func report(_ comparisons: [Comparison]) -> String {
        var text = "| comparison | ours ns/op | package ns/op | package / ours | rounds (ours / package) |\n|---|---:|---:|---:|---|\n"
        for c in comparisons {
            let spread = c.rounds.map { "\(Report.f($0.ours)) / \(Report.f($0.package))" }.joined(separator: ", ")
            text += "| \(c.name) | \(Report.f(c.ours)) | \(Report.f(c.package)) | \(String(format: "%.2f", c.package / c.ours)) | \(spread) |\n"
        }
        return text
    }

    private static func compare(
        _ name: String, rounds: Int, operations: Int, repeats: Int = 20, ours: () -> Int, package: () -> Int
    ) -> Comparison {
        // A warm-up pass of each, so neither pays for first-touch page faults.
        _ = ours()
        _ = package()
        var samples: [(ours: Double, package: Double)] = []
        var sink = 0
        for round in 0..<rounds {
            func time(_ body: () -> Int) -> Double {
                let start = threadCPUNanoseconds()
                for _ in 0..<repeats { sink &+= body() }
                return Double(threadCPUNanoseconds() - start) / Double(operations * repeats)
            }
            if round % 2 == 0 {
                let a = time(ours)
                samples.append((a, time(package)))
            } else {
                let b = time(package)
                samples.append((time(ours), b))
            }
        }
        // Keeps the work from being optimised away.
        if sink == 42 { print("", terminator: "") }
        return Comparison(
            name: name, ours: median(samples.map(\.ours)), package: median(samples.map(\.package)), rounds: samples)
    }

    /// The calling thread's CPU time.
    private static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    // MARK: Timers

    /// What the two timer heaps offer the loop.
    private protocol Timers {
        mutating func insert(deadline: Date, _ payload: Int) -> UInt64
        mutating func remove(_ id: UInt64)
        mutating func popDue(now: Date) -> Int?
    }

    private struct OurTimers: Timers {
        var heap = TimerHeap<Date, Int>()
        mutating func insert(deadline: Date, _ payload: Int) -> UInt64 { heap.insert(deadline: deadline, payload) }
        mutating func remove(_ id: UInt64) { heap.remove(id) }
        mutating func popDue(now: Date) -> Int? {
            let payload = heap.popDue(now: now, before: heap.pass)
            if payload == nil { heap.endPass() }
            return payload
        }
    }

    /// `Heap` with the lazy cancellation `TimerHeap` has: cancelled payloads are
    /// dropped at once, their items when they reach the top.
    private struct CollectionsTimers: Timers {
        struct Item: Comparable {
            let deadline: Date
            let id: UInt64
            static func < (a: Item, b: Item) -> Bool { a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id) }
        }
        var heap = Heap<Item>()
        var payloads: [UInt64: Int] = [:]
        var nextID: UInt64 = 1
        mutating func insert(deadline: Date, _ payload: Int) -> UInt64 {
            let id = nextID
            nextID += 1
            payloads[id] = payload
            heap.insert(Item(deadline: deadline, id: id))
            return id
        }
        mutating func remove(_ id: UInt64) {
            payloads[id] = nil
            if heap.count > 64, heap.count > payloads.count * 2 {
                heap = Heap(heap.unordered.filter { payloads[$0.id] != nil })
            }
        }
        mutating func popDue(now: Date) -> Int? {
            while let first = heap.min, first.deadline <= now {
                heap.removeMin()
                if let payload = payloads.removeValue(forKey: first.id) { return payload }
            }
            return nil
        }
    }

    /// Schedules 1024 timers at scattered deadlines, cancels every other one, then pops
    /// every due one: what a loop with many connections' deadlines does.
    private static func timerWorkload<T: Timers>(_ initial: T) -> Int {
        var timers = initial
        let base = Date(timeIntervalSinceReferenceDate: 1_000_000)
        var ids: [UInt64] = []
        ids.reserveCapacity(1024)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<1024 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let offset = Double(seed >> 44) / 1000
            ids.append(timers.insert(deadline: base.addingTimeInterval(offset), index))
        }
        for id in ids where id % 2 == 0 { timers.remove(id) }
        var sum = 0
        let now = base.addingTimeInterval(1e9)
        while let payload = timers.popDue(now: now) { sum &+= payload }
        return sum
    }

    // MARK: Call queue

    /// A queued call as the connection holds one: a few references and values.
    private struct Pending {
        let method: String
        let parameters: [UInt8]
        let more: Bool
    }

    private protocol CallQueue {
        mutating func append(_ call: Pending)
        mutating func popFirst() -> Pending?
    }

    /// The connection's queue: an array read from `start`, emptied (capacity kept) once drained.
    private struct ArrayQueue: CallQueue {
        var items: [Pending] = []
        var start = 0
        mutating func append(_ call: Pending) { items.append(call) }
        mutating func popFirst() -> Pending? {
            guard start < items.count else { return nil }
            let next = items[start]
            start += 1
            if start == items.count {
                items.removeAll(keepingCapacity: true)
                start = 0
            }
            return next
        }
    }

    private struct DequeQueue: CallQueue {
        var items = Deque<Pending>()
        mutating func append(_ call: Pending) { items.append(call) }
        mutating func popFirst() -> Pending? { items.popFirst() }
    }

    /// 4096 turns of a pipelining client: 16 calls read, then the 16 started in order.
    private static func queueWorkload<Q: CallQueue>(_ initial: Q) -> Int {
        var queue = initial
        let call = Pending(method: "io.widgetd.Host.GetPresentation", parameters: [1, 2, 3], more: false)
        var count = 0
        for _ in 0..<4096 {
            for _ in 0..<16 { queue.append(call) }
            while let next = queue.popFirst() { count &+= next.parameters.count }
        }
        return count
    }

    // MARK: Syscalls

    /// 64 bytes sent on one end of a socket pair and received on the other, 20,000 times.
    private static func compareSyscalls(rounds: Int) throws -> Comparison {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { throw BenchError("socketpair: errno \(errno)") }
        defer {
            close(pair[0])
            close(pair[1])
        }
        let message = [UInt8](repeating: 7, count: 64)
        var buffer = [UInt8](repeating: 0, count: 64)
        let iterations = 20_000
        let ours = {
            let a = WidgetdPOSIX.FileDescriptor(rawValue: pair[0])
            let b = WidgetdPOSIX.FileDescriptor(rawValue: pair[1])
            var total = 0
            for _ in 0..<iterations {
                _ = message.withUnsafeBytes { try? Syscall.send(a, $0) }
                total &+= buffer.withUnsafeMutableBytes { (try? Syscall.receive(b, into: $0)) ?? 0 }
            }
            return total
        }
        let package = {
            let a = SystemPackage.FileDescriptor(rawValue: pair[0])
            let b = SystemPackage.FileDescriptor(rawValue: pair[1])
            var total = 0
            for _ in 0..<iterations {
                _ = message.withUnsafeBytes { try? a.write($0) }
                total &+= buffer.withUnsafeMutableBytes { (try? b.read(into: $0)) ?? 0 }
            }
            return total
        }
        return compare(
            "syscalls: 64-byte send+receive on a socket pair (Syscall vs swift-system FileDescriptor)", rounds: rounds,
            operations: iterations, repeats: 1, ours: ours, package: package)
    }
}
