import CSystemShims
import Glibc

/// A failed system call: which call, and the `errno` it left.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `bind`.
    public let operation: String
    /// The `errno` value.
    public let code: Int32

    /// Records a failure of `operation` with `code`.
    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// The call and the system's text for the errno, e.g. `bind: Address already in use`.
    public var description: String {
        "\(operation): \(String(cString: strerror(code)))"
    }
}

/// The system calls the daemon's I/O layer makes, each turning `-1` + `errno` into a
/// typed ``SystemError`` and retrying `EINTR`, so callers never look at `errno`.
enum Syscall {
    /// Runs `body` until it does not fail with `EINTR`; a `-1` result throws.
    @discardableResult
    static func retrying<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemError(operation, code: code)
        }
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is gone anyway.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Reads into `buffer`; returns the count, 0 at end of stream, or `nil` when it would block.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError("read", code: code)
        }
    }

    /// Reads from a socket (`recv` with no flags: what `read` does on a stream socket,
    /// without the file layer's position lock and checks — ≈ 2% of a cached read's
    /// samples in `fdget_pos`, `vfs_read` and `sock_read_iter`); the count read, 0 at
    /// end of stream, or `nil` when it would block.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let count = Glibc.recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError("recv", code: code)
        }
    }

    /// Sends without raising SIGPIPE; returns the count written, or `nil` when it would block.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        while true {
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError("send", code: code)
        }
    }

    /// Accepts a connection as non-blocking and close-on-exec; `nil` when none is pending.
    static func accept(_ fd: Int32) throws(SystemError) -> Int32? {
        while true {
            let client = shim_accept_nonblocking(fd)
            if client >= 0 { return client }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            // The connection died between its arrival and accept(): try the next one.
            if code == ECONNABORTED || code == EPROTO { continue }
            throw SystemError("accept4", code: code)
        }
    }

    /// Makes a descriptor non-blocking.
    static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try retrying("fcntl") { fcntl(fd, F_GETFL) }
        if flags & O_NONBLOCK == 0 {
            try retrying("fcntl") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
    }
}
