import Glibc
import StrictJSON
import Varlink

/// One blocking connection to the daemon's Unix socket: the one socket and framing
/// loop of the client library and of widgetctl (`package`), which blocks on it directly.
///
/// Used by one thread at a time, except ``shutdown()``, which any thread may call to
/// wake a blocked read (a stream's cancellation); the descriptor is closed on release
/// only, so it can never be reused under a read in progress. Error replies are
/// returned, not thrown: the library maps them to ``WidgetdError``, widgetctl reads
/// their parameters.
package final class ClientSocket: @unchecked Sendable {
    /// The largest reply accepted, so a confused peer cannot exhaust memory.
    static let maximumReplyBytes = 16 << 20

    private let fileDescriptor: Int32
    private let framer = MessageFramer(maxMessageBytes: maximumReplyBytes)

    /// Connects to the socket at `path`.
    ///
    /// The corresponding C functions are `socket` and `connect`.
    package init(path: String) throws(WidgetdError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard !pathBytes.isEmpty, pathBytes.count < MemoryLayout.size(ofValue: address.sun_path), !pathBytes.contains(0) else {
            throw .invalidSocketPath(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io(errorNumber: errno) }
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while result != 0 && errno == EINTR
        if result != 0 {
            let error = errno
            close(fd)
            throw .daemonUnavailable(socket: path, errorNumber: error)
        }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Ends both directions: a read blocked in another thread returns end of stream.
    ///
    /// The corresponding C function is `shutdown`.
    package func shutdown() {
        _ = Glibc.shutdown(fileDescriptor, Int32(SHUT_RDWR))
    }

    /// Writes every byte; `MSG_NOSIGNAL` turns a vanished daemon into an error, not SIGPIPE.
    package func send(_ bytes: UnsafeRawBufferPointer) throws(WidgetdError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.send(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .connectionLost }
                throw .io(errorNumber: errno)
            }
            offset += n
        }
    }

    /// Writes every byte of `bytes`.
    package func send(_ bytes: [UInt8]) throws(WidgetdError) {
        // Array's accessor rethrows untyped errors; the typed error travels as a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(WidgetdError) in try send(raw) } }
        try result.get()
    }

    /// Reads the next reply; an error reply is returned, not thrown (the caller maps it).
    package func receive() throws(WidgetdError) -> VarlinkReplyMessage {
        var chunk = [UInt8](repeating: 0, count: 65536)
        // The chunk may hold decrypted content: zero it when done.
        defer { SecretWipe.zero(&chunk) }
        while true {
            let message: [UInt8]?
            do { message = try framer.nextMessage() } catch {
                throw .malformedReply("reply larger than \(Self.maximumReplyBytes) bytes")
            }
            if let message { return try Self.decodeReply(message) }
            let n = chunk.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET { throw .connectionLost }
                throw .io(errorNumber: errno)
            }
            if n == 0 { throw .connectionLost }
            chunk.withUnsafeBytes { framer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    /// Sends a call and reads its one reply.
    package func call(_ request: [UInt8]) throws(WidgetdError) -> VarlinkReplyMessage {
        try send(request)
        return try receive()
    }

    /// Sends a call assembled in zeroed memory (it carries a passcode) and reads its one reply.
    package func call(_ request: ZeroingBuffer) throws(WidgetdError) -> VarlinkReplyMessage {
        try request.withUnsafeBytes { (bytes) throws(WidgetdError) in try send(bytes) }
        return try receive()
    }

    /// Sends a `more` call, runs `sent`, then hands each reply to `body` until one does
    /// not continue or `body` returns false (the caller stops following).
    package func follow(
        _ request: [UInt8], sent: () -> Void = {}, _ body: (VarlinkReplyMessage) -> Bool
    ) throws(WidgetdError) {
        try send(request)
        sent()
        while true {
            let reply = try receive()
            guard body(reply), reply.continues else { return }
        }
    }

    /// A received message as a reply, or why it is not one.
    package static func decodeReply(_ message: [UInt8]) throws(WidgetdError) -> VarlinkReplyMessage {
        do { return try VarlinkReplyMessage(decoding: message) } catch {
            switch error {
            case .notAJSONObject: throw .malformedReply("reply is not a JSON object")
            case .invalidMember(let name): throw .malformedReply("reply \(name) has the wrong type")
            }
        }
    }
}
