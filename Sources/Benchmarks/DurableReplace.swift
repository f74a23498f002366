import Glibc

/// The floor of a durable replace, what every store here must do at least once per
/// commit: write a temporary file, `fsync` it, `rename` it over the old one, `fsync`
/// the directory.
final class DurableReplace {
    private let directory: String
    private let directoryFD: Int32
    private let name: String
    private let body: [UInt8]

    init(directory: String, name: String, bodyBytes: Int) throws {
        self.directory = directory
        self.name = name
        body = (0..<bodyBytes).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        directoryFD = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw BenchError("open \(directory): errno \(errno)") }
    }

    deinit { close(directoryFD) }

    /// One replace.
    func commit() throws {
        let temporary = "\(directory)/.tmp-\(name)"
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(temporary): errno \(errno)") }
        let written = body.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == body.count, fsync(fd) == 0 else {
            close(fd)
            throw BenchError("write/fsync: errno \(errno)")
        }
        close(fd)
        guard rename(temporary, "\(directory)/\(name)") == 0, fsync(directoryFD) == 0 else {
            throw BenchError("rename/fsync dir: errno \(errno)")
        }
    }
}
