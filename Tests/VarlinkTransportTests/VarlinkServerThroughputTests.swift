import Foundation
import Glibc
import Logging
import Testing
import Synchronization
import Varlink
import VarlinkTransport
import WidgetdPOSIX

/// Requests per second through the real server with a pre-encoded reply, the hot path
/// of GetPresentation. Off by default (it takes seconds): `WIDGETD_BENCHMARK=1`.
@Suite struct VarlinkServerThroughputTests {
    private final class CachedReplyHandler: VarlinkCallHandler {
        let reply = VarlinkReply.encode(parameters: ["presentation": ["widget": "com.example.weather/forecast", "mode": "content"]])
        func handle(_ call: VarlinkCall, context: CallContext) { context.reply(encoded: reply) }
        func connectionClosed(_ id: ConnectionID) {}
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["WIDGETD_BENCHMARK"] == "1"))
    func servesPreEncodedRepliesQuickly() throws {
        let loop = try EventLoop()
        let handler = CachedReplyHandler()
        let directory = NSTemporaryDirectory() + "widgetd-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/w.sock"
        let listener = try UnixListener.listen(at: path).fd
        defer { Syscall.close(listener) }
        let server = VarlinkServer(
            loop: loop, listeningSocket: listener, limits: ServerLimits(), service: .widgetd, handler: handler,
            logger: Logger(handler: InMemoryLogHandler()))
        try server.start()
        let connections = 8
        let requestsPerConnection = 20_000
        let request = Array(#"{"method":"io.widgetd.Host.GetPresentation","parameters":{"surface":"homeScreen","widget":"com.example.weather/forecast"}}"#.utf8) + [0]
        let finished = Mutex<Int>(0)
        let start = Date()
        for _ in 0..<connections {
            Thread.detachNewThread {
                let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(fd) }
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                withUnsafeMutableBytes(of: &address.sun_path) { raw in
                    let bytes = Array(path.utf8)
                    raw.copyBytes(from: bytes)
                    raw[bytes.count] = 0
                }
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
                var buffer = [UInt8](repeating: 0, count: 65536)
                for _ in 0..<requestsPerConnection {
                    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                    // One reply per request; replies are small enough to arrive whole.
                    var gotReply = false
                    while !gotReply {
                        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                        if count <= 0 { return }
                        gotReply = buffer[count - 1] == 0
                    }
                }
                let done = finished.withLock { $0 += 1; return $0 }
                if done == connections { loop.execute { loop.stop() } }
            }
        }
        loop.schedule(at: Date(timeIntervalSinceNow: 120)) { loop.stop() }
        try loop.run()
        let elapsed = Date().timeIntervalSince(start)
        let total = Double(connections * requestsPerConnection)
        print("varlink server: \(Int(total / elapsed)) requests/s over \(connections) connections (ping-pong)")
        #expect(finished.withLock { $0 } == connections)
        server.close()
    }
}
