import Foundation
import Glibc

/// A Varlink server on a Unix socket in a temporary directory, answering from a script.
///
/// A thread accepts connections one at a time, reads NUL-terminated requests, records
/// them, and sends the replies `respond` gives for each (several for a stream; none
/// hangs up), so that widgetctl's tests script exactly what it is told (errors,
/// odd replies, streams) without a daemon; IntegrationTests run widgetctl against the real one.
final class FakeVarlinkServer: @unchecked Sendable {
    /// The socket's path.
    let path: String
    /// The temporary directory holding the socket.
    let directory: String

    private let core: Core

    /// A server that answers every request with `replies`.
    convenience init(replies: [String]) throws {
        try self.init { _ in replies }
    }

    /// A server that answers each request (its JSON text) with what `respond` returns.
    init(respond: @escaping @Sendable (String) -> [String]) throws {
        directory = try TemporaryDirectory.make()
        path = directory + "/widgetd.sock"
        core = try Core(path: path, respond: respond)
        // The thread holds only the core, so releasing the server stops it.
        let thread = Thread { [core] in core.serve() }
        thread.start()
    }

    deinit {
        core.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The requests received so far, as JSON text without the NUL.
    var requests: [String] { core.requests }

    /// The requests received so far, parsed.
    var parsedRequests: [[String: Any]] {
        requests.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The listening socket and what the serving thread shares with the test.
    private final class Core: @unchecked Sendable {
        private let listener: Int32
        private let respond: @Sendable (String) -> [String]
        private let lock = NSLock()
        private var recorded: [String] = []
        private var connection: Int32 = -1
        private let finished = DispatchSemaphore(value: 0)

        init(path: String, respond: @escaping @Sendable (String) -> [String]) throws {
            self.respond = respond
            listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        var requests: [String] {
            lock.lock()
            defer { lock.unlock() }
            return recorded
        }

        /// Wakes the thread out of `accept` or `recv` and waits for it to end.
        func stop() {
            lock.lock()
            shutdown(listener, Int32(SHUT_RDWR))
            if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
            lock.unlock()
            finished.wait()
            close(listener)
        }

        func serve() {
            defer { finished.signal() }
            while true {
                let accepted = accept(listener, nil, nil)
                if accepted < 0 { return }
                // Spawned test binaries must not inherit the connection.
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                lock.lock()
                connection = accepted
                lock.unlock()
                handle(accepted)
                lock.lock()
                connection = -1
                close(accepted)
                lock.unlock()
            }
        }

        private func handle(_ connection: Int32) {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                while let end = buffer.firstIndex(of: 0) {
                    let request = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeSubrange(...end)
                    lock.lock()
                    recorded.append(request)
                    lock.unlock()
                    let replies = respond(request)
                    // No replies: hang up, as a daemon that crashed mid-call would.
                    if replies.isEmpty { return }
                    for reply in replies {
                        let bytes = Array(reply.utf8) + [0]
                        _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    }
                }
                let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return }
                buffer += chunk[0..<n]
            }
        }
    }
}

/// Fresh directories for sockets and files, short enough for a Unix socket path.
enum TemporaryDirectory {
    static func make() throws -> String {
        var template = Array("/tmp/widgetctl-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }
}
