import CSystemShims
import FoundationEssentials
import Glibc

/// Creates the daemon's listening socket when systemd does not pass one.
package enum UnixListener {
    /// Binds and listens on a Unix stream socket at `path`.
    ///
    /// Creates the parent directory (0755) if missing, replaces a stale socket left by an
    /// earlier run, and makes the socket 0660 so that only its owner and group can
    /// connect (DESIGN §6). A socket file that something still answers on is never
    /// replaced: that is a running daemon's, and taking it over would cut its clients
    /// off. Returns a non-blocking, close-on-exec descriptor and the identity of the
    /// file it bound, so that only that file is removed at exit.
    package static func listen(at path: String, backlog: Int32 = 128) throws(SystemError) -> ListeningSocket {
        try makeDirectories(PathComponents.parent(of: path))
        var address = try Self.address(path)
        let fd = FileDescriptor(rawValue: try Syscall.retrying("socket") { shim_unix_stream_socket() })
        do {
            try removeStaleSocket(at: path, address: &address)
            try Syscall.retrying("bind \(path)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd.rawValue, $0, addressLength(path)) }
                }
            }
            try Syscall.retrying("chmod \(path)") { chmod(path, 0o660) }
            var status = stat()
            try Syscall.retrying("stat \(path)") { lstat(path, &status) }
            try Syscall.retrying("listen") { Glibc.listen(fd.rawValue, backlog) }
            return ListeningSocket(fd: fd, path: path, device: status.st_dev, inode: status.st_ino)
        } catch {
            Syscall.close(fd)
            throw error
        }
    }

    private static func address(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SystemError("bind \(path)", errno: .fileNameTooLong)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        return address
    }

    private static func addressLength(_ path: String) -> socklen_t {
        socklen_t(MemoryLayout<sa_family_t>.size + path.utf8.count + 1)
    }

    /// Creates `directory` and its missing parents with mode 0755.
    private static func makeDirectories(_ directory: String) throws(SystemError) {
        guard !directory.isEmpty, directory != "/" else { return }
        var status = stat()
        if stat(directory, &status) == 0 { return }
        try makeDirectories(PathComponents.parent(of: directory))
        do throws(SystemError) {
            try Syscall.retrying("mkdir \(directory)") { mkdir(directory, 0o755) }
        } catch {
            guard error.errno == .fileExists else { throw error }
        }
    }

    /// Removes a socket file at `path` that nothing answers on (`connect` is refused);
    /// anything else there is left alone: a file that is not a socket (bind then fails),
    /// or a socket that answers or cannot be probed (an error naming the path).
    private static func removeStaleSocket(at path: String, address: inout sockaddr_un) throws(SystemError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return }
        // Non-blocking, so a listener whose backlog is full cannot hold the start up:
        // EAGAIN means someone listens there too.
        let probe = FileDescriptor(rawValue: try Syscall.retrying("socket") { shim_unix_stream_socket() })
        defer { Syscall.close(probe) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe.rawValue, $0, addressLength(path)) }
        }
        let code = connected == 0 ? 0 : Errno.current.rawValue
        switch code {
        case ECONNREFUSED:
            try Syscall.retrying("unlink \(path)") { unlink(path) }
        case ENOENT:
            // Removed meanwhile: bind creates it afresh.
            return
        case 0, EAGAIN, EINPROGRESS:
            throw SystemError(
                "another process already answers on \(path) (is another widgetd running with this --socket?)",
                errno: .addressInUse)
        default:
            throw SystemError("cannot tell whether \(path) is in use (connect)", code: code)
        }
    }
}

/// A socket ``UnixListener`` bound and listens on, and the file it bound.
package struct ListeningSocket: Sendable {
    /// The listening descriptor; the owner closes it.
    package let fd: FileDescriptor
    /// Where the socket file was bound.
    package let path: String
    /// The bound file's device and inode: what tells it from a socket another process
    /// bound at the same path later.
    let device: dev_t
    let inode: ino_t

    /// Removes the socket file if the path still names the file bound here; a file put
    /// there since (another daemon's socket) is left alone.
    package func removeFileIfOurs() {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_dev == device, status.st_ino == inode else { return }
        unlink(path)
    }
}
