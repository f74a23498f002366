import FoundationEssentials
import Glibc
import StoreFiles
import WidgetdPOSIX

/// Room held back on the state directory's file system (`STATE/reserve`, a file of
/// allocated zeros), as databases keep a ballast file: when the file system is full,
/// whoever filled it, the store gives this room back for the one operation that must
/// still go through — a delete, whose catalog save needs a few blocks and which then
/// frees room — and takes it again once there is room (at the next open, delete or
/// finished write). Writes never take it: a provider filling the disk cannot take the
/// owner's way out with it.
///
/// The file holds nothing (zeros) and is no part of the store's contents: a wipe leaves
/// it, and its loss costs only the reserve.
///
/// Threading: any thread (a delete's save runs off the store's); its calls take turns.
final class SpaceReserve: @unchecked Sendable {
    static let fileName = "reserve"
    /// Enough for many deletes' catalog saves (each a log append and a 141-byte head)
    /// and a compaction of a catalog of some ten thousand widgets.
    static let defaultBytes = 1 << 20

    let path: String
    let bytes: Int
    /// Whether the file holds its room now (guarded by `lock`).
    private var held = false
    private let lock = ThreadLock()

    /// Whether the file holds its room now.
    var isHeld: Bool { lock.withLock { held } }

    init(stateDirectory: String, bytes: Int = SpaceReserve.defaultBytes) {
        path = "\(stateDirectory)/\(Self.fileName)"
        self.bytes = bytes
    }

    /// Makes the file hold its room (allocated blocks) if it does not; `false` if the
    /// file system has not the room (or the file cannot be made): then it is tried again later.
    @discardableResult
    func replenish() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !held, bytes > 0 else { return held }
        guard let fd = try? FileSystem.openFile(path, flags: O_RDWR | O_CREAT) else { return false }
        defer { Syscall.close(fd) }
        // posix_fallocate returns the error itself; a partial allocation is given back.
        guard posix_fallocate(fd.rawValue, 0, off_t(bytes)) == 0 else {
            _ = ftruncate(fd.rawValue, 0)
            return false
        }
        guard fsync(fd.rawValue) == 0 else { return false }
        held = true
        return true
    }

    /// Gives the room back to the file system; `false` if there was none to give.
    func release() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard held else { return false }
        held = false
        guard let fd = try? FileSystem.openFile(path, flags: O_RDWR) else { return false }
        defer { Syscall.close(fd) }
        return ftruncate(fd.rawValue, 0) == 0
    }

    /// Runs `body`; if it fails for want of room and the reserve held some, runs it
    /// again with the reserve given back. `body` must have changed nothing when it
    /// throws (the store's operations that take the reserve do so).
    func retryingOnFullDisk<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do throws(StoreError) {
            return try body()
        } catch {
            guard case .io(_, _, let errno) = error, errno == Errno(rawValue: ENOSPC), release() else { throw error }
            return try body()
        }
    }
}
