import CSystemShims
import Glibc

/// An open file descriptor: a file, a socket, an epoll instance, an eventfd.
///
/// A newtype over the C `int`, in swift-system's shape, so that a descriptor is never
/// taken for a count, a flag or an errno. It does not own the descriptor: whoever
/// opened it closes it (``Syscall/close(_:)``).
package struct FileDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C descriptor.
    package let rawValue: CInt

    /// Wraps a C descriptor.
    @inlinable
    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// The number, for logs.
    package var description: String { String(rawValue) }
}

/// An `errno` value, named as the C constant is in its doc comment.
package struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C value.
    package let rawValue: CInt

    /// Wraps a C value.
    @inlinable
    package init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's `errno` now.
    @inlinable
    package static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// The system's text for it, e.g. `Address already in use`.
    package var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal interrupted the call; it is retried.
    package static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` (= `EWOULDBLOCK` on Linux): a non-blocking call would have blocked.
    package static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EBADF`: not an open descriptor. Only a bug (a descriptor closed twice, or
    /// used after its close) gives it, so the helper traps on it.
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EFAULT`: a pointer outside the address space. Only a bug gives it: it traps.
    package static let badAddress = Errno(rawValue: EFAULT)
    /// `ENOENT`.
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EEXIST`.
    package static let fileExists = Errno(rawValue: EEXIST)
    /// `ENAMETOOLONG`.
    package static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
    /// `EADDRINUSE`.
    package static let addressInUse = Errno(rawValue: EADDRINUSE)
    /// `ECONNABORTED`.
    package static let connectionAborted = Errno(rawValue: ECONNABORTED)
    /// `EPROTO`.
    package static let protocolError = Errno(rawValue: EPROTO)
}

/// A failed system call: which call, and the ``Errno`` it left. The one error type
/// that carries an errno: the daemon's I/O layer throws it, and the store wraps it
/// with the path it was about (`StoreError.io`).
package struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `bind`, possibly with what it was about.
    package let operation: String
    /// What it failed with.
    package let errno: Errno

    /// Records a failure of `operation` with `errno`.
    package init(_ operation: String, errno: Errno) {
        self.operation = operation
        self.errno = errno
    }

    /// Records a failure of `operation` with the C value `code`.
    package init(_ operation: String, code: CInt) {
        self.init(operation, errno: Errno(rawValue: code))
    }

    /// The C value of ``errno``.
    package var code: CInt { errno.rawValue }

    /// The call and the system's text for the errno, e.g. `bind: Address already in use`.
    package var description: String { "\(operation): \(errno)" }
}

/// The system calls widgetd makes through one helper, ``retrying(_:_:)``: it turns
/// `-1` + `errno` into a typed ``SystemError``, retries `EINTR`, and traps on the
/// errnos that can only mean a bug in the caller (`EBADF`, `EFAULT`), as swift-nio
/// does: thrown, they would be logged and carried on from, with a descriptor number
/// that may by then name another file.
package enum Syscall {
    /// Runs `body` until it does not fail with `EINTR`; a `-1` result throws, and
    /// `EBADF` or `EFAULT` traps.
    @inlinable
    @discardableResult
    package static func retrying<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = Errno.current
            if code == .interrupted { continue }
            trapOnBug(code, operation)
            throw SystemError(operation, errno: code)
        }
    }

    /// ``retrying(_:_:)`` for a non-blocking call: `nil` when it would block.
    @inlinable
    package static func retryingUnlessWouldBlock<T: FixedWidthInteger>(
        _ operation: String, _ body: () -> T
    ) throws(SystemError) -> T? {
        do throws(SystemError) {
            return try retrying(operation, body)
        } catch {
            if error.errno == .wouldBlock { return nil }
            throw error
        }
    }

    /// Stops the process on an errno that only a bug in the caller gives.
    @usableFromInline
    static func trapOnBug(_ code: Errno, _ operation: String) {
        if code == .badFileDescriptor || code == .badAddress {
            fatalError("\(operation) failed with \(code) (\(code.rawValue)): a descriptor or pointer bug")
        }
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is gone
    /// anyway, and a retry could close one opened meanwhile by another thread.
    package static func close(_ fd: FileDescriptor) {
        _ = Glibc.close(fd.rawValue)
    }

    /// Reads into `buffer`; returns the count, 0 at end of file, or `nil` when it would block.
    package static func read(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try retryingUnlessWouldBlock("read") { Glibc.read(fd.rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads from a socket (`recv` with no flags: what `read` does on a stream socket,
    /// without the file layer's position lock and checks — ≈ 2% of a cached read's
    /// samples in `fdget_pos`, `vfs_read` and `sock_read_iter`); the count read, 0 at
    /// end of stream, or `nil` when it would block.
    package static func receive(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try retryingUnlessWouldBlock("recv") { Glibc.recv(fd.rawValue, buffer.baseAddress, buffer.count, 0) }
    }

    /// Sends without raising SIGPIPE; returns the count written, or `nil` when it would block.
    package static func send(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try retryingUnlessWouldBlock("send") {
            Glibc.send(fd.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        }
    }

    /// Writes to a file; the count written (`write` may take less than all).
    package static func write(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try retrying("write") { Glibc.write(fd.rawValue, bytes.baseAddress, bytes.count) }
    }

    /// Accepts a connection as non-blocking and close-on-exec; `nil` when none is pending.
    package static func accept(_ listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        while true {
            do throws(SystemError) {
                guard let client = try retryingUnlessWouldBlock("accept4", { shim_accept_nonblocking(listener.rawValue) })
                else { return nil }
                return FileDescriptor(rawValue: client)
            } catch {
                // The connection died between its arrival and accept(): try the next one.
                if error.errno == .connectionAborted || error.errno == .protocolError { continue }
                throw error
            }
        }
    }

    /// Makes a descriptor non-blocking.
    package static func setNonBlocking(_ fd: FileDescriptor) throws(SystemError) {
        let flags = try retrying("fcntl") { fcntl(fd.rawValue, F_GETFL) }
        if flags & O_NONBLOCK == 0 {
            try retrying("fcntl") { fcntl(fd.rawValue, F_SETFL, flags | O_NONBLOCK) }
        }
    }
}

extension Syscall {
    /// A pidfd of a connected Unix socket's peer, taken by the kernel when it connected.
    ///
    /// The corresponding C call is `getsockopt(SO_PEERPIDFD)` (Linux 6.5).
    package static func peerPIDFD(_ socket: FileDescriptor) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try retrying("getsockopt(SO_PEERPIDFD)") { shim_peer_pidfd(socket.rawValue) })
    }

    /// A descriptor of a directory that only names it (`O_PATH`), for `openat`.
    ///
    /// The corresponding C call is `openat(O_PATH | O_DIRECTORY | O_CLOEXEC)`.
    static func openDirectoryPath(_ path: String, relativeTo directory: FileDescriptor? = nil) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try retrying("open(\(path))") { shim_open_directory_path(directory?.rawValue ?? -1, path) })
    }

    /// A regular file in `directory`, opened to read without following a symbolic link
    /// at its name (`ELOOP`) or blocking on a FIFO (anything but a regular file: `EINVAL`).
    ///
    /// The corresponding C call is `openat(O_RDONLY | O_NOFOLLOW | O_NONBLOCK)`, then `fstat`.
    static func openRegularFile(_ name: String, relativeTo directory: FileDescriptor) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try retrying("open(\(name))") { shim_open_regular_file_at(directory.rawValue, name) })
    }

    /// A file opened to read.
    ///
    /// The corresponding C call is `open(O_RDONLY | O_CLOEXEC)`.
    static func openReadOnly(_ path: String) throws(SystemError) -> FileDescriptor {
        FileDescriptor(rawValue: try retrying("open(\(path))") { shim_open_read_only(path) })
    }
}
