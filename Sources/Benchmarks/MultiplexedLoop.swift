import CSystemShims
import Glibc

/// A closed loop over `connections` sockets driven by one thread and one `epoll_wait`:
/// each connection sends its next request as soon as its reply is complete.
///
/// Why not a thread per connection (``ClosedLoop``): on this 2-core machine that client
/// cost more CPU than the server it measured. A thread blocked in `recv` is woken
/// twice per request — once by the reply, and once, for nothing, when the server
/// consumes the request (the kernel wakes writers on the request's socket; a blocked
/// `recv` cannot filter that wake-up, an epoll entry does) — and each wake-up is a
/// context switch that the server pays for too (`unix_write_space` was a quarter of
/// either server's samples). One thread waiting on every connection at once does no
/// such switch, and the rows stay comparable: every server is measured by this code.
enum MultiplexedLoop {
    /// One connection of the loop: its socket and the request it repeats.
    struct Connection {
        let client: SocketClient
        let request: [UInt8]
    }

    /// Runs the loop for `duration` seconds after `warmUp`, and reports throughput and
    /// latency (from the request's `send` to the moment its reply is complete).
    static func run(
        connections count: Int, duration: Double, warmUp: Double = 0.2,
        makeConnection: (Int) throws -> Connection
    ) throws -> LoopResult {
        let connections = try (0..<count).map { index in
            let connection = try makeConnection(index)
            try connection.client.makeNonBlocking()
            return connection
        }
        let epoll = shim_epoll_create()
        guard epoll >= 0 else { throw BenchError("epoll_create1: errno \(errno)") }
        defer { close(epoll) }
        for (index, connection) in connections.enumerated() {
            guard shim_epoll_ctl(epoll, shim_EPOLL_CTL_ADD, connection.client.descriptor, shim_EPOLLIN, UInt64(index)) == 0
            else { throw BenchError("epoll_ctl: errno \(errno)") }
        }
        var latencies: [UInt64] = []
        var completed = 0
        latencies.reserveCapacity(1 << 20)
        var sentAt = [UInt64](repeating: 0, count: count)
        var measured = [Int](repeating: 0, count: count)
        var scanned = [Int](repeating: 0, count: count)
        var active = count
        var isActive = [Bool](repeating: true, count: count)
        let start = Clock.nanoseconds()
        let warmEnd = start + UInt64(warmUp * 1e9)
        let end = warmEnd + UInt64(duration * 1e9)
        for (index, connection) in connections.enumerated() {
            sentAt[index] = Clock.nanoseconds()
            try connection.client.send(connection.request)
        }
        var tokens = [UInt64](repeating: 0, count: 256)
        var masks = [UInt32](repeating: 0, count: 256)
        while active > 0 {
            let ready = shim_epoll_wait(epoll, &tokens, &masks, Int32(min(count, 256)), 1000)
            if ready < 0 {
                if errno == EINTR { continue }
                throw BenchError("epoll_wait: errno \(errno)")
            }
            if ready == 0 { throw BenchError("no reply within a second") }
            for slot in 0..<Int(ready) {
                let index = Int(tokens[slot])
                guard isActive[index] else { continue }
                let connection = connections[index]
                guard try connection.client.receive(scanned: &scanned[index]) != nil else { continue }
                // One clock read per request: the reply's arrival is the next request's start.
                let now = Clock.nanoseconds()
                completed += 1
                if sentAt[index] >= warmEnd {
                    latencies.append(now - sentAt[index])
                    measured[index] += 1
                }
                connection.client.dropLastReply()
                scanned[index] = 0
                if now >= end {
                    isActive[index] = false
                    active -= 1
                    continue
                }
                sentAt[index] = now
                try connection.client.send(connection.request)
            }
        }
        guard !latencies.isEmpty else { throw BenchError("no operation completed") }
        latencies.sort()
        func percentile(_ p: Double) -> Double {
            Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000
        }
        var result = LoopResult(
            throughput: Double(latencies.count) / duration, p50: percentile(0.50), p99: percentile(0.99),
            count: latencies.count, completed: completed)
        result.p999 = percentile(0.999)
        result.mean = Double(latencies.reduce(0, +)) / Double(latencies.count) / 1000
        result.starved = LoopResult.starved(measured)
        return result
    }
}
