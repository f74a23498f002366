import Glibc

/// The floor of a journal commit, what widgetd's lone write must do at least once: one
/// record `pwrite` into a file whose blocks are already written (so no allocation and
/// no size change reaches the journal of the file system), then `fdatasync`. Records
/// go one after another through the file and wrap around at its end, as widgetd's
/// journal regions do.
final class JournalAppend {
    private let fd: Int32
    private let body: [UInt8]
    private let capacity: Int
    private var offset = 0

    /// Creates `path` and writes `records` records of zeros into it, synced, before the
    /// first commit.
    init(path: String, bodyBytes: Int, records: Int = 2048) throws {
        body = (0..<bodyBytes).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) }
        capacity = bodyBytes * records
        fd = Glibc.open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("open \(path): errno \(errno)") }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var written = 0
        while written < capacity {
            let n = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, min($0.count, capacity - written), off_t(written)) }
            guard n > 0 else {
                close(fd)
                throw BenchError("pwrite \(path): errno \(errno)")
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            close(fd)
            throw BenchError("fsync \(path): errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// One durable record.
    func commit() throws {
        if offset + body.count > capacity { offset = 0 }
        let written = body.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        guard written == body.count, fdatasync(fd) == 0 else { throw BenchError("pwrite/fdatasync: errno \(errno)") }
        offset += body.count
    }
}
