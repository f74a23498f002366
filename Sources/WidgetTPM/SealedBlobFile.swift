import Glibc

/// The blob file's I/O: read without following links, replaced durably (temporary
/// file, `fsync`, `rename`, directory `fsync`), mode 0600.
enum SealedBlobFile {
    /// The file's bytes, or `nil` when there is none.
    static func read(_ path: String) throws(TPM2DeviceKeyError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure(path)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw failure(path) }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            // A blob is under 1 KiB; anything far larger is not one.
            guard bytes.count <= 64 << 10 else { throw .file(path: path, reason: "larger than any sealed blob") }
        }
    }

    /// Replaces the file durably with `bytes`.
    static func write(_ bytes: [UInt8], to path: String, directory: String) throws(TPM2DeviceKeyError) {
        let temporary = "\(path).new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(temporary) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = failure(temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let error = failure(temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw failure(path) }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw failure(directory) }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw failure(directory) }
    }

    /// Removes the file; one already gone is not an error.
    static func remove(_ path: String) throws(TPM2DeviceKeyError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure(path) }
    }

    private static func failure(_ path: String) -> TPM2DeviceKeyError {
        .file(path: path, reason: String(cString: strerror(errno)))
    }
}
