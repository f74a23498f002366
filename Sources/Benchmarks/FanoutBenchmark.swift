import CSystemShims
import Foundation
import Glibc

/// Unlock fan-out: `hosts` hosts, each on its own connection, `Watch` one of
/// a few class-A widgets while the device is locked (they hold the placeholder), then
/// one `Unlock`; measured until the last host holds content. With as many widgets as
/// hosts, every host watches a widget of its own: the unlock then opens one file per
/// host (its class key was purged at the lock, `ClassAGraceSec=0`, and its plaintext
/// with it), the case where the files' key agreements rather than the sends bound it.
///
/// The daemon's time is separated from the client's: besides the wall-clock time from
/// the Unlock reply to the last host's content, the daemon's loop thread's CPU time
/// over the whole step (`/proc/PID/task/PID/schedstat`, nanoseconds: the loop runs on
/// the main thread) and this client's own CPU time reading the hosts' replies
/// (`CLOCK_THREAD_CPUTIME_ID`). With `writing`, a provider writes class-C timelines in
/// a closed loop on its own connection meanwhile.
///
/// The class rules are checked on the way: no host's reply before the Unlock, nor after
/// the Lock that follows each round (`ClassAGraceSec=0`), carries the content's marker.
enum FanoutBenchmark {
    /// One round's figures, milliseconds.
    struct Round: Sendable {
        /// The Unlock round trip (`PasscodeKDF=minimum`: the KDF is negligible).
        let unlockMs: Double
        /// From the Unlock reply to the last host holding content.
        let lastHostMs: Double
        /// From sending Unlock to the last host holding content: the figure that does not
        /// depend on when this one client thread got to read the Unlock reply (the daemon
        /// answers the Unlock before it re-presents the watches).
        let sinceSentMs: Double
        /// The daemon's loop thread's CPU time from sending Unlock to the last host's content.
        let daemonCPUMs: Double
        /// This client's CPU time reading the hosts' replies after the Unlock reply.
        let clientCPUMs: Double
    }

    /// A row: `hosts` watching `widgets` widgets, with or without a provider writing.
    struct Row: Sendable {
        let hosts: Int
        let widgets: Int
        let writing: Bool
        let rounds: [Round]
        /// Writes the provider completed during the rounds (0 without `writing`).
        let writes: Int

        /// The round with the median `sinceSentMs`.
        var median: Round { rounds.sorted { $0.sinceSentMs < $1.sinceSentMs }[rounds.count / 2] }
    }

    /// The marker the widgets' sensitive fields carry (`VarlinkRequest.entries`).
    private static let contentMarker = Array("SECRET-".utf8)

    /// Measures `rounds` unlocks with `hosts` watching, against a fresh daemon of `binary`.
    /// `widgets` nil: ten widgets (fewer with fewer hosts), each watched by many hosts.
    static func run(
        root: String, binary: String, hosts: Int, widgets distinct: Int? = nil, writing: Bool, rounds: Int, timelineBytes: Int
    ) throws -> Row {
        let widgetCount = min(hosts, distinct ?? 10)
        let daemon = try BenchDaemon(
            root: root, binary: binary,
            extra: ["MaxConnections=\(hosts + 64)", "MaxConnectionsPerUser=\(hosts + 64)"])
        try daemon.start()
        defer { daemon.stop() }
        guard let pid = daemon.server?.pid else { throw BenchError("fanout: no daemon") }
        let widgets = (0..<widgetCount).map { "com.example.health/fanout-\($0)" }
        let control = try daemon.client()
        try VarlinkRequest.call(control, "io.widgetd.Device.SetPasscode", ["new": "1234"])
        for widget in widgets {
            try VarlinkRequest.check(control, VarlinkRequest.putTimeline(widget, bytes: timelineBytes), "PutTimeline")
        }
        let lock = VarlinkRequest.encode("io.widgetd.Device.Lock")
        let unlock = VarlinkRequest.encode("io.widgetd.Device.Unlock", ["passcode": "1234"])
        try VarlinkRequest.check(control, lock, "Lock")

        // Every host watches; its first reply is the placeholder (locked).
        let clients = try (0..<hosts).map { index -> SocketClient in
            let client = try daemon.client()
            try client.roundTrip(watchRequest(widgets[index % widgetCount]))
            try checkHidden(client.lastReply, "before the first unlock")
            client.dropLastReply()
            try client.makeNonBlocking()
            return client
        }
        let epoll = shim_epoll_create()
        guard epoll >= 0 else { throw BenchError("epoll_create1: errno \(errno)") }
        defer { close(epoll) }
        for (index, client) in clients.enumerated() {
            guard shim_epoll_ctl(epoll, shim_EPOLL_CTL_ADD, client.descriptor, shim_EPOLLIN, UInt64(index)) == 0 else {
                throw BenchError("epoll_ctl: errno \(errno)")
            }
        }

        let writer = writing ? Writer(daemon: daemon, bytes: timelineBytes) : nil
        defer { writer?.stop() }
        var measured: [Round] = []
        for _ in 0..<rounds {
            let daemonBefore = try loopThreadNanoseconds(pid)
            let sent = Clock.nanoseconds()
            try control.roundTrip(unlock)
            let answered = Clock.nanoseconds()
            let clientBefore = threadCPUNanoseconds()
            let replies = try waitForEveryHost(clients, epoll: epoll)
            let last = Clock.nanoseconds()
            let clientAfter = threadCPUNanoseconds()
            let daemonAfter = try loopThreadNanoseconds(pid)
            for reply in replies where !contains(reply, contentMarker) {
                throw BenchError("fanout: a host got no content after the unlock")
            }
            measured.append(Round(
                unlockMs: Double(answered - sent) / 1e6, lastHostMs: Double(last - answered) / 1e6,
                sinceSentMs: Double(last - sent) / 1e6,
                daemonCPUMs: Double(daemonAfter - daemonBefore) / 1e6, clientCPUMs: Double(clientAfter - clientBefore) / 1e6))
            // Locked again: every host is sent its placeholder, and nothing of class A.
            try control.roundTrip(lock)
            for reply in try waitForEveryHost(clients, epoll: epoll) { try checkHidden(reply, "after the lock") }
        }
        let writes = writer?.stop() ?? 0
        return Row(hosts: hosts, widgets: widgetCount, writing: writing, rounds: measured, writes: writes)
    }

    /// `Watch` with `more`, so that the daemon streams every change.
    private static func watchRequest(_ widget: String) -> [UInt8] {
        let object: [String: Any] = [
            "method": "io.widgetd.Host.Watch", "more": true,
            "parameters": ["widget": widget, "surface": "homeScreen"],
        ]
        return Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) + [0]
    }

    /// Reads until every host has one more reply; returns them in host order.
    private static func waitForEveryHost(_ clients: [SocketClient], epoll: Int32) throws -> [[UInt8]] {
        var replies = [[UInt8]?](repeating: nil, count: clients.count)
        var scanned = [Int](repeating: 0, count: clients.count)
        var missing = clients.count
        var tokens = [UInt64](repeating: 0, count: 256)
        var masks = [UInt32](repeating: 0, count: 256)
        while missing > 0 {
            let ready = shim_epoll_wait(epoll, &tokens, &masks, 256, 5000)
            if ready < 0 {
                if errno == EINTR { continue }
                throw BenchError("epoll_wait: errno \(errno)")
            }
            if ready == 0 { throw BenchError("fanout: \(missing) hosts got nothing within 5 s") }
            for slot in 0..<Int(ready) {
                let index = Int(tokens[slot])
                guard replies[index] == nil else { continue }
                let client = clients[index]
                guard try client.receive(scanned: &scanned[index]) != nil else { continue }
                replies[index] = client.lastReply
                client.dropLastReply()
                missing -= 1
            }
        }
        return replies.map { $0! }
    }

    private static func checkHidden(_ reply: [UInt8], _ when: String) throws {
        if reply.starts(with: Array(#"{"error":"#.utf8)) {
            throw BenchError("fanout: Watch failed: \(String(decoding: reply.dropLast(), as: UTF8.self))")
        }
        if contains(reply, contentMarker) { throw BenchError("fanout: a host was sent class-A content \(when)") }
    }

    private static func contains(_ reply: [UInt8], _ marker: [UInt8]) -> Bool {
        reply.firstRange(of: marker) != nil
    }

    /// The daemon's main (loop) thread's time on the CPU, nanoseconds.
    private static func loopThreadNanoseconds(_ pid: Int32) throws -> UInt64 {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/schedstat", encoding: .utf8),
            let first = text.split(separator: " ").first, let value = UInt64(first)
        else { throw BenchError("fanout: no schedstat for \(pid)") }
        return value
    }

    private static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// A provider writing class-C timelines in a closed loop on its own thread and connection.
    private final class Writer: @unchecked Sendable {
        private let lock = NSLock()
        private var stopping = false
        private var count = 0
        private let finished = DispatchSemaphore(value: 0)
        private var stopped = false

        init(daemon: BenchDaemon, bytes: Int) {
            let socket = daemon.socketPath
            let request = VarlinkRequest.putTimeline("com.example.weather/fanout-writer", bytes: bytes)
            let thread = Thread { [self] in
                defer { finished.signal() }
                guard let client = try? SocketClient(path: socket, framing: .nulTerminated) else { return }
                while !lock.withLock({ stopping }) {
                    // A failed write ends the loop; the count says how far it got.
                    guard (try? VarlinkRequest.check(client, request, "PutTimeline")) != nil else { return }
                    lock.withLock { count += 1 }
                }
            }
            thread.start()
        }

        /// Stops the loop (once) and returns how many writes it completed.
        @discardableResult
        func stop() -> Int {
            let first = lock.withLock { () -> Bool in
                defer { stopping = true }
                return !stopped
            }
            if first {
                finished.wait()
                lock.withLock { stopped = true }
            }
            return lock.withLock { count }
        }
    }
}
