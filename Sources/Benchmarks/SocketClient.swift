import Glibc

/// The one client every server is measured with: a blocking Unix stream socket that
/// sends a request and reads until a reply is complete.
///
/// Only the framing differs between servers (a NUL for Varlink and the echo server,
/// a RESP bulk string for Redis); the system calls, buffers and clock are the same.
final class SocketClient {
    /// How a reply ends.
    enum Framing {
        /// A NUL byte ends each message (Varlink, the echo server).
        case nulTerminated
        /// A RESP reply: `$<n>\r\n<n bytes>\r\n`, `+OK\r\n`, `-ERR …\r\n` or `:<n>\r\n`.
        case resp
    }

    private let fd: Int32
    private let framing: Framing
    private var buffer: [UInt8]
    private var filled = 0

    /// Connects to the socket at `path`.
    init(path: String, framing: Framing) throws {
        self.framing = framing
        buffer = [UInt8](repeating: 0, count: 1 << 16)
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw BenchError("connect \(path): errno \(code)")
        }
    }

    deinit { close(fd) }

    /// Sends `request` and returns the length of the reply that came back (the reply
    /// itself stays in the buffer until the next call).
    @discardableResult
    func roundTrip(_ request: [UInt8]) throws -> Int {
        try request.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw BenchError("send: errno \(errno)")
                }
                offset += n
            }
        }
        return try readReply()
    }

    /// The bytes of the last reply (for checks and for sizing peers' values).
    private(set) var lastReply: ArraySlice<UInt8> = []

    private func readReply() throws -> Int {
        var scanned = 0
        while true {
            if let end = complete(scanned: &scanned) {
                lastReply = buffer[0..<end]
                let rest = filled - end
                if rest > 0 { buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + end, byteCount: rest) } }
                filled = rest
                return end
            }
            if filled == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, $0.count - filled, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                throw BenchError("recv: errno \(errno)")
            }
            if n == 0 { throw BenchError("server closed the connection") }
            filled += n
        }
    }

    /// The end of a complete reply in the buffer, if there is one.
    private func complete(scanned: inout Int) -> Int? {
        switch framing {
        case .nulTerminated:
            let found: Int? = buffer.withUnsafeBytes { raw in
                guard filled > scanned,
                    let hit = memchr(raw.baseAddress! + scanned, 0, filled - scanned)
                else { return nil }
                return raw.baseAddress!.distance(to: UnsafeRawPointer(hit)) + 1
            }
            scanned = filled
            return found
        case .resp:
            guard filled >= 3, let lineEnd = buffer[0..<filled].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            guard buffer[0] == UInt8(ascii: "$") else { return lineEnd + 1 }
            let length = Int(String(decoding: buffer[1..<(lineEnd - 1)], as: UTF8.self)) ?? -1
            if length < 0 { return lineEnd + 1 }
            let end = lineEnd + 1 + length + 2
            return filled >= end ? end : nil
        }
    }
}
