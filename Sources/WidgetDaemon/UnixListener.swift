import CSystemShims
import Foundation
import Glibc

/// Creates the daemon's listening socket when systemd does not pass one.
public enum UnixListener {
    /// Binds and listens on a Unix stream socket at `path`.
    ///
    /// Creates the parent directory (0755) if missing, removes a stale socket left by an
    /// earlier run, and makes the socket 0660 so that only its owner and group can
    /// connect (DESIGN §6). Returns a non-blocking, close-on-exec descriptor.
    public static func listen(at path: String, backlog: Int32 = 128) throws(SystemError) -> Int32 {
        try makeDirectories((path as NSString).deletingLastPathComponent)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { throw SystemError("bind \(path)", code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
            raw[pathBytes.count] = 0
        }
        let fd = try Syscall.retrying("socket") { shim_unix_stream_socket() }
        do {
            try removeStaleSocket(at: path)
            let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + 1)
            try Syscall.retrying("bind \(path)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
                }
            }
            try Syscall.retrying("chmod \(path)") { chmod(path, 0o660) }
            try Syscall.retrying("listen") { Glibc.listen(fd, backlog) }
        } catch {
            Syscall.close(fd)
            throw error
        }
        return fd
    }

    /// Creates `directory` and its missing parents with mode 0755.
    private static func makeDirectories(_ directory: String) throws(SystemError) {
        guard !directory.isEmpty, directory != "/" else { return }
        var status = stat()
        if stat(directory, &status) == 0 { return }
        try makeDirectories((directory as NSString).deletingLastPathComponent)
        if mkdir(directory, 0o755) != 0, errno != EEXIST {
            throw SystemError("mkdir \(directory)", code: errno)
        }
    }

    /// Removes a socket file at `path`; anything else there is left alone (bind then fails).
    private static func removeStaleSocket(at path: String) throws(SystemError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { return }
        try Syscall.retrying("unlink \(path)") { unlink(path) }
    }
}
