import Dispatch
import FoundationEssentials
import Glibc
import SecureMemory
import WidgetCrypto
import WidgetdPOSIX

/// Every file operation the store makes, in one file, each system call through the
/// POSIX layer's one helper (`Syscall.retrying`: `EINTR` retried, `EBADF`/`EFAULT`
/// trapped); a failure becomes `FileError.io` with the operation, the path and the
/// errno (``call(_:_:_:)``). Writes that must survive a crash go through
/// `writeAtomically`: temporary file in the same directory, `fsync`, `rename`,
/// directory `fsync`, so a reader sees the old file or the new one, never a mix.
package enum FileSystem {
    /// Runs a system call through `Syscall.retrying`; a failure is the store's error
    /// about `path`.
    @discardableResult
    package static func call<T: FixedWidthInteger>(_ operation: String, _ path: String, _ body: () -> T) throws(FileError) -> T {
        do {
            return try Syscall.retrying(operation, body)
        } catch {
            throw FileError(error, path: path)
        }
    }

    /// ``call(_:_:_:)``'s outcome as a value, for a call made in a closure that cannot
    /// throw a typed error (an array's `withUnsafeMutableBytes`).
    package static func result<T: FixedWidthInteger>(_ operation: String, _ path: String, _ body: () -> T) -> Result<T, FileError> {
        Result { () throws(FileError) in try call(operation, path, body) }
    }

    /// Runs a system call through `Syscall.retrying`, returning its error rather than
    /// throwing it, for the callers that tell some errnos apart.
    private static func attempt<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) -> Result<T, SystemError> {
        Result { () throws(SystemError) in try Syscall.retrying(operation, body) }
    }

    /// Creates a directory with `mode` unless it exists, and checks that it is one the
    /// store may trust: a real directory (not a link to one), owned by the daemon's
    /// uid, that neither its group nor others may write (`unsafeEntry` otherwise).
    ///
    /// Checked on the opened directory (`O_NOFOLLOW`, `fstat`), not on its name, so a
    /// link swapped in between cannot pass. A new directory is made durably: its entry
    /// lasts a power cut only once its parent is synced, and without that the cut could
    /// take the directory with everything later made durable inside it.
    package static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(FileError) {
        var created = true
        if case .failure(let error) = attempt("mkdir", { mkdir(path, mode) }) {
            guard error.errno == .fileExists else { throw FileError(error, path: path) }
            created = false
        }
        Syscall.close(try openDirectory(path))
        if created { try syncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path) }
    }

    /// Opens a directory of the store without following a link, and checks it as
    /// `makeDirectory` says. The caller closes the descriptor.
    package static func openDirectory(_ path: String) throws(FileError) -> FileDescriptor {
        let fd: FileDescriptor
        switch attempt("open", { open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }) {
        case .success(let opened): fd = FileDescriptor(rawValue: opened)
        case .failure(let error):
            switch error.errno.rawValue {
            case ELOOP: throw .unsafeEntry(path: path, reason: .symbolicLink)
            case ENOTDIR: throw .unsafeEntry(path: path, reason: .notDirectory)
            default: throw FileError(error, path: path)
            }
        }
        _ = try checked(fd, opened: path) { (info) in
            if info.st_uid != geteuid() { .foreignOwner(uid: info.st_uid) }
            else if info.st_mode & 0o022 != 0 { .writableByOthers(mode: UInt32(info.st_mode & 0o7777)) }
            else { nil }
        }
        return fd
    }

    /// The `fstat` of `fd`, just opened at `path`, if `judge` finds nothing wrong with
    /// it; otherwise `fd` is closed and the reason thrown (`unsafeEntry`), as is a
    /// failed `fstat`.
    private static func checked(
        _ fd: FileDescriptor, opened path: String, _ judge: (stat) -> UnsafeEntryReason?
    ) throws(FileError) -> stat {
        var info = stat()
        do {
            try call("fstat", path) { fstat(fd.rawValue, &info) }
        } catch {
            Syscall.close(fd)
            throw error
        }
        if let reason = judge(info) {
            Syscall.close(fd)
            throw .unsafeEntry(path: path, reason: reason)
        }
        return info
    }

    /// Who may own a file the store opens.
    package enum Owners {
        /// The daemon's uid only: every file of the state directory.
        case daemon
        /// The daemon's uid or root: a systemd credential, which systemd (root) may
        /// keep as its own and let the daemon read through an ACL.
        case daemonOrRoot
    }

    /// Opens an existing file (or, with `O_CREAT` in `flags`, a new one) without
    /// following a link and without blocking, and checks that it is a regular file of
    /// the daemon's uid (`owners`); returns `nil` if it does not exist. The caller
    /// closes the descriptor.
    package static func openFile(
        _ path: String, flags: Int32 = O_RDONLY, mode: mode_t = 0o600, owners: Owners = .daemon
    ) throws(FileError) -> FileDescriptor? {
        try openFileWithStatus(path, flags: flags, mode: mode, owners: owners)?.fd
    }

    /// `openFile`, with the `fstat` it checked (the size and mode, for a reader: no second call).
    ///
    /// `O_NONBLOCK` makes the `open` of a FIFO return at once instead of waiting for a
    /// writer (a FIFO planted in `timelines/` must not hang the daemon); it changes
    /// nothing for a regular file, and anything else is refused before it is read.
    package static func openFileWithStatus(
        _ path: String, flags: Int32 = O_RDONLY, mode: mode_t = 0o600, owners: Owners = .daemon
    ) throws(FileError) -> (fd: FileDescriptor, info: stat)? {
        let fd: FileDescriptor
        switch attempt("open", { open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode) }) {
        case .success(let opened): fd = FileDescriptor(rawValue: opened)
        case .failure(let error):
            switch error.errno.rawValue {
            case ENOENT: return nil
            case ELOOP: throw .unsafeEntry(path: path, reason: .symbolicLink)
            case ENXIO, EISDIR: throw .unsafeEntry(path: path, reason: .notRegularFile)
            default: throw FileError(error, path: path)
            }
        }
        let info = try checked(fd, opened: path) { (info) in
            let owned = info.st_uid == geteuid() || (owners == .daemonOrRoot && info.st_uid == 0)
            return if info.st_mode & S_IFMT != S_IFREG { .notRegularFile }
            else if !owned { .foreignOwner(uid: info.st_uid) }
            else { nil }
        }
        return (fd, info)
    }

    /// Whether something exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The whole file, or `nil` if it does not exist. Larger than `limit` → corrupt
    /// (malformed); not a regular file of ours → `unsafeEntry` (`openFile`).
    package static func readFile(_ path: String, limit: Int) throws(FileError) -> [UInt8]? {
        guard let (fd, info) = try openFileWithStatus(path) else { return nil }
        defer { Syscall.close(fd) }
        guard Int(info.st_size) <= limit else { throw .corrupt(file: path, reason: .malformed) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = try bytes.withUnsafeMutableBytes { buffer in
                result("read", path) { read(fd.rawValue, buffer.baseAddress! + offset, buffer.count - offset) }
            }.get()
            if n == 0 { break }
            offset += n
        }
        // A file that shrank under us reads as what it now is: the format checks catch the rest.
        return offset == bytes.count ? bytes : Array(bytes.prefix(offset))
    }

    /// Writes `count` bytes from `source` to a new file descriptor, retrying short writes.
    private static func writeAll(_ fd: FileDescriptor, _ source: UnsafeRawBufferPointer, _ path: String) throws(FileError) {
        var offset = 0
        while offset < source.count {
            offset += try call("write", path) { write(fd.rawValue, source.baseAddress! + offset, source.count - offset) }
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (`pread`, retrying short reads);
    /// returns how many there were (fewer at the end of the file).
    package static func readAt(_ fd: FileDescriptor, into buffer: inout [UInt8], at offset: Int, path: String) throws(FileError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = try buffer.withUnsafeMutableBytes { b in
                result("read", path) { pread(fd.rawValue, b.baseAddress! + done, b.count - done, off_t(offset + done)) }
            }.get()
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Writes all of `source` at `offset` (`pwrite`, retrying short writes).
    package static func writeAt(_ fd: FileDescriptor, _ source: UnsafeRawBufferPointer, at offset: Int, path: String) throws(FileError) {
        var done = 0
        while done < source.count {
            let n = try call("write", path) { pwrite(fd.rawValue, source.baseAddress! + done, source.count - done, off_t(offset + done)) }
            guard n > 0 else { throw .io(operation: "write", path: path, errno: Errno(rawValue: EIO)) }
            done += n
        }
    }

    /// Writes all of `bytes` at `offset`; see ``writeAt(_:_:at:path:)``.
    package static func writeAt(_ fd: FileDescriptor, _ bytes: [UInt8], at offset: Int, path: String) throws(FileError) {
        try bytes.withBytes { (buffer) throws(FileError) in try writeAt(fd, buffer, at: offset, path: path) }
    }

    /// Creates a new file (it must not exist) holding a secret, mode 0600, durably.
    package static func createSecretFile(_ path: String, directory: String, contents: SecureBytes) throws(FileError) {
        let fd = FileDescriptor(
            rawValue: try call("create", path) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600) })
        do throws(FileError) {
            try contents.withUnsafeBytes { (buffer) throws(FileError) in try writeAll(fd, buffer, path) }
            try call("fsync", path) { fsync(fd.rawValue) }
        } catch {
            Syscall.close(fd)
            unlink(path)
            throw error
        }
        Syscall.close(fd)
        try syncDirectory(directory)
    }

    /// Replaces `directory/name` with `bytes` atomically and durably.
    package static func writeAtomically(directory: String, name: String, bytes: [UInt8]) throws(FileError) {
        try replaceFile(directory: directory, name: name, bytes: bytes)
        try syncDirectory(directory)
    }

    /// Replaces several files of one directory atomically and durably, sharing the
    /// costly part (group commit): each name's files are written, `fsync`ed and renamed
    /// in parallel with the other names', and the directory is `fsync`ed once.
    ///
    /// Renames run in parallel too, not only the `fsync`s: replacing an existing file
    /// frees the old one's blocks, which on this kind of mount (`discard`) costs a
    /// synchronous trim per rename, milliseconds against microseconds onto a fresh name,
    /// so renaming a batch in turn would hold the loop for all of them (docs/BENCHMARKS.md).
    /// The work runs on an overcommitting queue, which gives each blocked task a
    /// thread of its own, not one per core.
    ///
    /// Returns, per file, `nil` if it was replaced or the error that stopped it. A
    /// failure of the final directory `fsync` is thrown: then no replacement is known to
    /// be durable. Names may repeat; the files of one name are written in the order
    /// given, so the last bytes given for a name win.
    package static func writeAtomically(directory: String, files: [(name: String, bytes: [UInt8])]) throws(FileError) -> [FileError?] {
        try writeAtomically(
            directory: directory,
            sealing: files.map { file in (file.name, { @Sendable () throws(FileError) -> [UInt8] in file.bytes }) })
    }

    /// `writeAtomically(directory:files:)` with each file's bytes made by `bytes` on the
    /// thread that writes it, so that sealing runs in parallel too. A file whose bytes
    /// cannot be made fails alone.
    package static func writeAtomically(
        directory: String, sealing files: [(name: String, bytes: @Sendable () throws(FileError) -> [UInt8])]
    ) throws(FileError) -> [FileError?] {
        let outcomes = Outcomes(count: files.count)
        var byName: [String: [Int]] = [:]
        var names: [String] = []
        for (index, file) in files.enumerated() {
            if byName[file.name] == nil { names.append(file.name) }
            byName[file.name, default: []].append(index)
        }
        let replace = { @Sendable (indices: [Int]) in
            for index in indices {
                do throws(FileError) {
                    try replaceFile(directory: directory, name: files[index].name, bytes: try files[index].bytes())
                } catch {
                    outcomes.set(index, error)
                }
            }
        }
        if names.count == 1 {
            replace(byName[names[0]]!)
        } else {
            let group = DispatchGroup()
            for name in names {
                let indices = byName[name]!
                commitQueue.async(group: group) { replace(indices) }
            }
            group.wait()
        }
        let results = outcomes.all
        if results.contains(where: { $0 == nil }) { try syncDirectory(directory) }
        return results
    }

    /// Where the group commit's parallel work runs: a concurrent queue, which libdispatch
    /// backs with overcommitting threads (one per blocked task).
    private static let commitQueue = DispatchQueue(label: "widgetd.group-commit", attributes: .concurrent)

    /// Writes, syncs and renames one file into place; the directory is not synced.
    private static func replaceFile(directory: String, name: String, bytes: [UInt8]) throws(FileError) {
        let (fd, temporary) = try writeTemporary(directory: directory, bytes: bytes)
        do {
            try call("fsync", temporary) { fsync(fd.rawValue) }
        } catch {
            Syscall.close(fd)
            unlink(temporary)
            throw error
        }
        // Not retried on EINTR (the descriptor is gone either way), but its error counts:
        // on some file systems close is where a failed write shows.
        guard close(fd.rawValue) == 0 else {
            let error = FileError(SystemError("close", errno: .current), path: temporary)
            unlink(temporary)
            throw error
        }
        do {
            try call("rename", "\(directory)/\(name)") { rename(temporary, "\(directory)/\(name)") }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Writes a new temporary file in `directory` and returns it still open, not yet synced.
    private static func writeTemporary(directory: String, bytes: [UInt8]) throws(FileError) -> (fd: FileDescriptor, path: String) {
        let suffix: [UInt8]
        do { suffix = try Sodium.randomBytes(count: 8) } catch { throw FileError(error) }
        let temporary = "\(directory)/.tmp-\(Hex.encode(suffix))"
        let fd = FileDescriptor(
            rawValue: try call("create", temporary) {
                open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            })
        do throws(FileError) {
            try bytes.withBytes { (buffer) throws(FileError) in try writeAll(fd, buffer, temporary) }
        } catch {
            Syscall.close(fd)
            unlink(temporary)
            throw error
        }
        return (fd, temporary)
    }

    /// The outcome of each file of a group commit, written from several threads.
    private final class Outcomes: @unchecked Sendable {
        private let lock = ThreadLock()
        private var errors: [FileError?]
        init(count: Int) { errors = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ error: FileError) { lock.withLock { errors[index] = error } }
        var all: [FileError?] { lock.withLock { errors } }
    }

    /// Removes a file; `false` if there was none. Does not sync the directory.
    @discardableResult
    package static func remove(_ path: String) throws(FileError) -> Bool {
        switch attempt("unlink", { unlink(path) }) {
        case .success: return true
        case .failure(let error) where error.errno == .noSuchFileOrDirectory: return false
        case .failure(let error): throw FileError(error, path: path)
        }
    }

    /// Makes a directory's entries (creations, renames, removals) durable.
    package static func syncDirectory(_ path: String) throws(FileError) {
        let fd = FileDescriptor(rawValue: try call("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) })
        defer { Syscall.close(fd) }
        try call("fsync", path) { fsync(fd.rawValue) }
    }

    /// The names in a directory, without `.` and `..`.
    package static func list(_ path: String) throws(FileError) -> [String] {
        guard let dir = opendir(path) else { throw FileError(SystemError("opendir", errno: .current), path: path) }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            // readdir returns NULL both at the end and on error; errno tells them apart.
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { throw FileError(SystemError("readdir", errno: .current), path: path) }
                break
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// Lower-case hexadecimal for public bytes (file names).
package enum Hex {
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
