import Foundation
import Glibc

/// A blocking Varlink client for tests: one Unix stream connection, calls written as
/// NUL-terminated JSON, replies read back the same way. Deliberately independent of
/// the daemon's own Varlink code, so the tests check the wire, not the code against itself.
final class VarlinkTestClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A reply: either parameters or an error name with parameters.
    struct Reply {
        let object: [String: Any]
        var error: String? { object["error"] as? String }
        var parameters: [String: Any] { object["parameters"] as? [String: Any] ?? [:] }
        var continues: Bool { object["continues"] as? Bool ?? false }
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String, timeout: Int = 30) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect \(path): errno \(code)")
        }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends raw bytes (for malformed-input tests).
    func send(raw bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += n
        }
    }

    /// Sends one call.
    func send(_ method: String, _ parameters: [String: Any] = [:], more: Bool = false, oneway: Bool = false) throws {
        var message: [String: Any] = ["method": method, "parameters": parameters]
        if more { message["more"] = true }
        if oneway { message["oneway"] = true }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        try send(raw: bytes)
    }

    /// Reads the next reply, or throws when the connection closed or timed out.
    func receive() throws -> Reply {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] else {
                    throw Failure(description: "reply is not an object")
                }
                return Reply(object: object)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // A socket with a receive timeout answers EINTR, not a restart, when the test
            // process is stopped and continued (a debugger, a loaded machine's job control).
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(description: n == 0 ? "connection closed" : "recv: errno \(errno)") }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Reads the next reply within `seconds`, or returns nil.
    func receive(within seconds: Int) -> Reply? {
        var short = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &short, socklen_t(MemoryLayout<timeval>.size))
        defer {
            var long = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &long, socklen_t(MemoryLayout<timeval>.size))
        }
        return try? receive()
    }

    /// Whether the daemon closed the connection without another reply.
    func isClosed() -> Bool {
        (try? receive()) == nil
    }

    /// One call and its reply.
    @discardableResult
    func call(_ method: String, _ parameters: [String: Any] = [:]) throws -> Reply {
        try send(method, parameters)
        return try receive()
    }

    /// One call that must succeed; returns its parameters.
    @discardableResult
    func ok(_ method: String, _ parameters: [String: Any] = [:]) throws -> [String: Any] {
        let reply = try call(method, parameters)
        if let error = reply.error { throw Failure(description: "\(method) failed: \(error) \(reply.parameters)") }
        return reply.parameters
    }
}
