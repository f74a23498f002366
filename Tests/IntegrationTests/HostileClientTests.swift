import Foundation
import Glibc
import Testing

/// Promise 3 (SECURITY.md): hostile clients do not hurt others. While every kind of
/// hostile client below attacks at once, the daemon stays up, its memory stays bounded,
/// and a good client's p99 latency stays within a small factor of its p99 alone.
@Suite struct HostileClientTests {
    static let widget = "com.example.clock/world"

    /// A raw client socket for attacks: no framing, no checks.
    final class RawSocket: @unchecked Sendable {
        let fd: Int32

        init?(path: String) {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                return nil
            }
            var tv = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        /// Sends everything; false once the daemon closed the connection or stopped reading.
        @discardableResult
        func send(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }

        /// Reads until the daemon closes the connection (true) or 5 s pass (false).
        func drainUntilClosed() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
                if n < 0 { return false }
            }
        }
    }

    /// Shared flag and counters of the attacking threads.
    final class Attack: @unchecked Sendable {
        private let lock = NSLock()
        private var running = true
        private var counts: [String: Int] = [:]
        var isRunning: Bool { lock.withLock { running } }
        func stop() { lock.withLock { running = false } }
        func count(_ kind: String) { lock.withLock { counts[kind, default: 0] += 1 } }
        var summary: [String: Int] { lock.withLock { counts } }
    }

    static func message(_ method: String, _ parameters: String = "{}") -> [UInt8] {
        Array("{\"method\":\"\(method)\",\"parameters\":\(parameters)}".utf8) + [0]
    }

    /// The malformed messages a client may send; each must get an error or a close.
    static let malformed: [(String, [UInt8])] = [
        ("invalid JSON", Array("{\"method\": nope}".utf8) + [0]),
        ("invalid UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D, 0]),
        ("nested arrays", Array(("{\"method\":\"io.widgetd.Host.ListWidgets\",\"parameters\":{\"x\":"
            + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}}").utf8) + [0]),
        ("nested objects", Array(("{\"method\":\"io.widgetd.Host.ListWidgets\",\"parameters\":"
            + String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000) + "}").utf8) + [0]),
        ("unterminated nesting", Array(String(repeating: "[", count: 10_000).utf8) + [0]),
        ("not an object", Array("[1,2,3]".utf8) + [0]),
    ]

    @Test func everyMalformedMessageIsAnsweredOrClosedAndTheDaemonStaysUp() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        for (name, bytes) in Self.malformed {
            let client = try #require(RawSocket(path: daemon.socketPath))
            client.send(bytes)
            // Either an error reply or a close; never a hang, never a crash.
            var reply = [UInt8](repeating: 0, count: 4096)
            let n = reply.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            #expect(n >= 0, "\(name): no answer within 5 s")
            if n > 0 { #expect(String(decoding: reply[..<n], as: UTF8.self).contains("\"error\""), "\(name)") }
            #expect(daemon.process?.isRunning == true, "\(name) stopped the daemon")
        }
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
    }

    /// The daemon's resident memory, from `/proc/PID/status`.
    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// Latencies of `count` GetPresentation calls on one connection, in seconds, sorted.
    static func latencies(_ client: VarlinkTestClient, count: Int) throws -> [Double] {
        var result: [Double] = []
        for _ in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            try client.ok("io.widgetd.Host.GetPresentation", ["widget": widget, "surface": "homeScreen"])
            result.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return result.sorted()
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }

    @Test func aGoodClientStaysFastWhileHostileClientsAttack() throws {
        let daemon = try DaemonProcess(daemon: ["MaxMessageBytes=1048576", "MaxConnections=1200"])
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        let good = try daemon.client()
        try good.ok("io.widgetd.Provider.PutTimeline", Fixtures.putParameters(Self.widget))
        _ = try Self.latencies(good, count: 200)  // warm up
        let alone = try Self.latencies(good, count: 1_000)
        let memoryBefore = Self.residentKiB(pid)

        let attack = Attack()
        let group = DispatchGroup()
        let path = daemon.socketPath
        // 1,000 idle connections, held open for the whole attack.
        var idle: [RawSocket] = []
        for _ in 0..<1_000 { if let socket = RawSocket(path: path) { idle.append(socket) } }
        let started = DispatchGroup()
        func attacker(_ kind: String, _ body: @escaping @Sendable (Attack) -> Void) {
            // A thread each (not a shared pool), all running before the measurement starts.
            group.enter()
            started.enter()
            Thread.detachNewThread {
                started.leave()
                while attack.isRunning {
                    body(attack)
                    attack.count(kind)
                }
                group.leave()
            }
        }
        // Oversized: 3 MiB without a NUL, until the daemon closes the connection.
        attacker("oversized") { _ in
            guard let socket = RawSocket(path: path) else { return }
            socket.send([UInt8](repeating: UInt8(ascii: " "), count: 3 << 20))
            _ = socket.drainUntilClosed()
        }
        // A message that never ends (below the limit), then silence.
        attacker("never ends") { attack in
            guard let socket = RawSocket(path: path) else { return }
            socket.send(Array("{\"method\":\"io.widgetd.Host.ListWidgets\",\"parameters\":{\"x\":\"".utf8)
                + [UInt8](repeating: UInt8(ascii: "a"), count: 512 * 1024))
            while attack.isRunning { usleep(10_000) }
        }
        // Invalid JSON, invalid UTF-8, 10,000-deep nesting, again and again.
        attacker("malformed") { _ in
            for (_, bytes) in Self.malformed {
                guard let socket = RawSocket(path: path) else { return }
                socket.send(bytes)
                _ = socket.drainUntilClosed()
            }
        }
        // A byte at a time (every 10 ms here, a hundred times faster than a byte a second).
        attacker("slow") { attack in
            guard let socket = RawSocket(path: path) else { return }
            for byte in Self.message("io.widgetd.Host.ListWidgets") where attack.isRunning {
                guard socket.send([byte]) else { return }
                usleep(10_000)
            }
        }
        // Never reads its replies: pipelines large replies until the daemon gives up on it.
        attacker("never reads") { attack in
            guard let socket = RawSocket(path: path) else { return }
            let call = Self.message("org.varlink.service.GetInterfaceDescription", "{\"interface\":\"io.widgetd.Device\"}")
            let batch = Array([[UInt8]](repeating: call, count: 64).joined())
            while attack.isRunning, socket.send(batch) {}
        }

        #expect(started.wait(timeout: .now() + 30) == .success)
        let during = try Self.latencies(good, count: 500)
        let memoryDuring = Self.residentKiB(pid)
        attack.stop()
        #expect(group.wait(timeout: .now() + 60) == .success)
        idle.removeAll()

        let p50Alone = Self.percentile(alone, 0.5), p99Alone = Self.percentile(alone, 0.99)
        let p50During = Self.percentile(during, 0.5), p99During = Self.percentile(during, 0.99)
        print(String(
            format: "HostileClientTests: good client p50 %.3f ms, p99 %.3f ms alone; p50 %.3f ms, p99 %.3f ms under attack (%.1fx); RSS %d KiB -> %d KiB; attacks %@",
            p50Alone * 1e3, p99Alone * 1e3, p50During * 1e3, p99During * 1e3, p99During / p99Alone,
            memoryBefore, memoryDuring, "\(attack.summary)"))
        #expect(daemon.process?.isRunning == true)
        // Generous bounds, so a loaded CI machine cannot flake them; a daemon blocked by
        // one client (the slow attacker's message alone takes 0.6 s) or buffering every
        // attacker's bytes (hundreds of MiB) fails.
        #expect(p99During < max(25 * p99Alone, 0.5), "p99 \(p99During) s under attack vs \(p99Alone) s alone")
        #expect(memoryDuring - memoryBefore < 128 * 1024, "RSS grew from \(memoryBefore) KiB to \(memoryDuring) KiB")
        #expect(attack.summary.values.reduce(0, +) > 5)
        #expect(try good.ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
        #expect(try daemon.client().ok("io.widgetd.Device.GetStatus")["state"] as? String == "unlocked")
    }
}
