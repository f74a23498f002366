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
    /// Received bytes: raw memory the client owns, so reading into it never copies it
    /// (an array here was shared with `lastReply` and copied whole, 64 KiB, on every
    /// request: a sixth of the client's CPU, charged to every server's figures).
    private var buffer: UnsafeMutableRawBufferPointer
    /// Bytes received so far, from the start of the buffer.
    private var filled = 0
    /// The last reply occupies `0..<replyEnd`; the bytes after it belong to the next.
    private var replyEnd = 0

    /// Connects to the socket at `path`.
    init(path: String, framing: Framing) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: errno \(errno)") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw BenchError("connect \(path): errno \(code)")
        }
        self.fd = fd
        self.framing = framing
        buffer = .allocate(byteCount: 1 << 16, alignment: 16)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Sends `request` and returns the length of the reply that came back (the reply
    /// itself stays in the buffer until the next call).
    @discardableResult
    func roundTrip(_ request: [UInt8]) throws -> Int {
        try send(request)
        dropLastReply()
        var scanned = 0
        while true {
            if let end = try receive(scanned: &scanned, blocking: true) { return end }
        }
    }

    /// Makes the socket non-blocking, for ``MultiplexedLoop``, which waits for all its
    /// connections in one `epoll_wait`.
    func makeNonBlocking() throws {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw BenchError("fcntl: errno \(errno)") }
    }

    /// The socket, for registering it with epoll.
    var descriptor: Int32 { fd }

    /// Sends all of `request` (a request is small: a non-blocking socket with nothing
    /// in flight takes it whole, and a short send is retried).
    func send(_ request: [UInt8]) throws {
        try request.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    throw BenchError("send: errno \(errno)")
                }
                offset += n
            }
        }
    }

    /// Forgets the last reply, keeping bytes that arrived after it; call before sending
    /// the next request's wait begins.
    func dropLastReply() {
        guard replyEnd > 0 else { return }
        let rest = filled - replyEnd
        if rest > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + replyEnd, byteCount: rest) }
        filled = rest
        replyEnd = 0
    }

    /// Reads once (on a non-blocking socket, what is there) and returns the reply's length
    /// when it is complete; `scanned` carries the framing's progress between calls.
    func receive(scanned: inout Int, blocking: Bool = false) throws -> Int? {
        if let end = complete(scanned: &scanned) {
            replyEnd = end
            return end
        }
        if filled == buffer.count {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 16)
            larger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: filled)
            buffer.deallocate()
            buffer = larger
        }
        let n = recv(fd, buffer.baseAddress! + filled, buffer.count - filled, 0)
        if n < 0 {
            if errno == EINTR || (!blocking && errno == EAGAIN) { return nil }
            throw BenchError("recv: errno \(errno)")
        }
        if n == 0 { throw BenchError("server closed the connection") }
        filled += n
        if let end = complete(scanned: &scanned) {
            replyEnd = end
            return end
        }
        return nil
    }

    /// A copy of the last reply (for checks and for sizing peers' values).
    var lastReply: [UInt8] { Array(UnsafeRawBufferPointer(rebasing: buffer[0..<replyEnd])) }

    /// The end of a complete reply in the buffer, if there is one.
    private func complete(scanned: inout Int) -> Int? {
        let base = UnsafePointer<UInt8>(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
        switch framing {
        case .nulTerminated:
            defer { scanned = filled }
            guard filled > scanned, let hit = memchr(base + scanned, 0, filled - scanned) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) + 1
        case .resp:
            // The same work for every reply: find the first line, then its length.
            guard filled >= 3, let hit = memchr(base, Int32(UInt8(ascii: "\n")), filled) else { return nil }
            let lineEnd = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            guard base[0] == UInt8(ascii: "$") else { return lineEnd + 1 }
            var length = 0
            var index = 1
            if base[1] == UInt8(ascii: "-") { return lineEnd + 1 }
            while index < lineEnd - 1 {
                let digit = Int(base[index]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit) else { return lineEnd + 1 }
                length = length * 10 + digit
                index += 1
            }
            let end = lineEnd + 1 + length + 2
            return filled >= end ? end : nil
        }
    }
}
